import { batch, computed, signal } from '@preact/signals'
import type { Caption } from '../voice/contract.ts'
import { createTabChannel, type TabChannel } from './channel.ts'
import { type ChatSession, MAX_MESSAGE_LENGTH, type ReplySource, type StreamEvent } from './contract.ts'
import type { Entry } from './entry.ts'
import { createSessionStore, type SessionStore } from './storage.ts'
import { type ChatTransport, TransportError } from './transport.ts'

export type { Entry } from './entry.ts'

/** Why the visitor cannot go on right now; shown in place with what to do next. */
export type Problem =
  | { kind: 'error' | 'network' | 'unavailable' }
  | { kind: 'rate_limited'; retryAt: number }

export type ChatModelEvent =
  | { type: 'message'; role: 'user' | 'assistant'; content: string }
  | { type: 'conversation-end' }
  | { type: 'error'; code: string }

export type ChatModelOptions = {
  agentId: string
  transport: ChatTransport
  userIdentifier?: string
  store?: SessionStore
  channel?: TabChannel
  onEvent?: (event: ChatModelEvent) => void
  now?: () => number
}

let nextId = 0
const entry = (kind: Entry['kind'], text: string): Entry => ({ id: `e${++nextId}`, kind, text })

/** The state of one agent's conversation and everything that changes it. */
export const createChatModel = ({
  agentId,
  transport,
  userIdentifier,
  store = createSessionStore(`parley:v1:${agentId}`),
  channel = createTabChannel(`parley:${agentId}`),
  onEvent = () => {},
  now = Date.now,
}: ChatModelOptions) => {
  const entries = signal<Entry[]>([])
  const phase = signal<'idle' | 'starting' | 'ready' | 'streaming' | 'ended'>('idle')
  const isAwaitingFirstChunk = signal(false)
  const toolStatus = signal<string | null>(null)
  const problem = signal<Problem | null>(null)
  const agentName = signal('')
  /** Set by a session that says the deployment has no voice. */
  const isVoiceOff = signal(false)
  const isOpen = signal(false)
  const unread = signal(0)
  const clock = signal(now())
  const retrySeconds = computed(() => {
    const current = problem.value
    return current?.kind === 'rate_limited'
      ? Math.max(0, Math.ceil((current.retryAt - clock.value) / 1000))
      : 0
  })
  const hasUserMessage = computed(() => entries.value.some((item) => item.kind === 'user'))
  let session: ChatSession | null = null
  let abort: AbortController | null = null
  let lastFailed: string | null = null
  /** The send whose stream is open: an error event shows its notice before the stream ends. */
  let sending: Promise<void> | null = null
  let ticker: ReturnType<typeof setInterval> | undefined
  let starting: Promise<ChatSession | null> | null = null

  const share = () =>
    channel.post({
      type: 'snapshot',
      entries: entries.value,
      isStreaming: phase.value === 'streaming',
      conversationId: session?.conversationId ?? null,
    })
  const append = (item: Entry) => {
    entries.value = [...entries.value, item]
  }
  const report = (next: Problem, code: string) => {
    problem.value = next
    onEvent({ type: 'error', code })
    if (next.kind !== 'rate_limited') return
    // The clock only ticks during a countdown; a stale one would start it too high.
    clock.value = now()
    clearInterval(ticker)
    ticker = setInterval(() => {
      clock.value = now()
      if (retrySeconds.value === 0) clearInterval(ticker)
    }, 250)
  }
  const fail = (error: unknown) => {
    if (!(error instanceof TransportError)) return report({ kind: 'network' }, 'network_error')
    if (error.status === 429)
      return report(
        { kind: 'rate_limited', retryAt: now() + (error.retryAfterSeconds ?? 5) * 1000 },
        'rate_limited',
      )
    if (error.status === 402) return report({ kind: 'unavailable' }, error.code ?? 'insufficient_credits')
    report({ kind: error.status === 0 ? 'network' : 'error' }, error.code ?? `http_${error.status}`)
  }
  const isExpired = (error: unknown) =>
    error instanceof TransportError && (error.status === 401 || error.status === 404)

  const greet = (fresh: ChatSession) => {
    agentName.value = fresh.agentName
    isVoiceOff.value = Boolean(fresh.isVoiceOff)
    if (fresh.greeting) append(entry('assistant', fresh.greeting))
  }
  /** A stored conversation comes back from the history endpoint; an expired one is dropped silently. */
  const restore = async (stored: ChatSession) => {
    try {
      const history = await transport.history(stored)
      session = stored
      agentName.value = stored.agentName
      isVoiceOff.value = Boolean(stored.isVoiceOff)
      const hasGreeting = stored.greeting && history[0]?.content !== stored.greeting
      entries.value = [
        ...(hasGreeting ? [entry('assistant', stored.greeting ?? '')] : []),
        ...history.map((message) => ({
          ...entry(message.role, message.content),
          isSpoken: message.isSpoken,
          ...(message.sources?.length ? { sources: message.sources } : {}),
        })),
      ]
      return stored
    } catch (error) {
      if (!isExpired(error)) throw error
      store.clear()
      return null
    }
  }
  const create = async () => {
    const fresh = await transport.createSession({ agentId, ...(userIdentifier ? { userIdentifier } : {}) })
    session = fresh
    store.save(fresh)
    greet(fresh)
    return fresh
  }
  /** Restores or creates the session once, however many callers ask at the same time. */
  const start = () => {
    if (session) return Promise.resolve(session)
    starting ??= (async () => {
      phase.value = 'starting'
      try {
        const stored = store.load()
        const ready = (stored && (await restore(stored))) || (await create())
        phase.value = 'ready'
        share()
        return ready
      } catch (error) {
        phase.value = 'idle'
        fail(error)
        return null
      } finally {
        starting = null
      }
    })()
    return starting
  }

  const applyEvent = (event: StreamEvent, reply: { current: Entry | null; sources?: ReplySource[] }) => {
    switch (event.type) {
      case 'chunk':
        batch(() => {
          isAwaitingFirstChunk.value = false
          toolStatus.value = null
          if (!reply.current) {
            reply.current = {
              ...entry('assistant', ''),
              ...(reply.sources ? { sources: reply.sources } : {}),
            }
            append(reply.current)
          }
          reply.current = { ...reply.current, text: reply.current.text + event.delta }
          const id = reply.current.id
          const updated = reply.current
          entries.value = entries.value.map((item) => (item.id === id ? updated : item))
        })
        break
      case 'sources':
        if (event.sources.length > 0) reply.sources = event.sources
        break
      case 'tool_call':
        toolStatus.value = event.name
        break
      case 'tool_result':
        toolStatus.value = null
        break
      case 'handoff':
        agentName.value = event.toAgent
        append(entry('handoff', event.toAgent))
        reply.current = null
        break
      case 'error':
        report({ kind: 'error' }, 'stream_error')
        break
      case 'stream_end':
        if (event.endSession) void endConversation()
        break
    }
    share()
  }

  const send = async (text: string) => {
    const message = text.trim()
    if (
      !message ||
      message.length > MAX_MESSAGE_LENGTH ||
      phase.value === 'streaming' ||
      phase.value === 'ended'
    )
      return false
    if (retrySeconds.value > 0) return false
    const active = await start()
    if (!active) return false
    batch(() => {
      problem.value = null
      append(entry('user', message))
      phase.value = 'streaming'
      isAwaitingFirstChunk.value = true
    })
    share()
    onEvent({ type: 'message', role: 'user', content: message })
    const reply: { current: Entry | null; sources?: ReplySource[] } = { current: null }
    abort = new AbortController()
    lastFailed = null
    try {
      sending = transport.send({
        session: active,
        message,
        signal: abort.signal,
        onEvent: (event) => applyEvent(event, reply),
      })
      await sending
      // An `error` event ends the stream normally; the message is still worth another try.
      if (problem.value?.kind === 'error') lastFailed = message
    } catch (error) {
      lastFailed = message
      fail(error)
    } finally {
      batch(() => {
        isAwaitingFirstChunk.value = false
        toolStatus.value = null
        if (phase.value === 'streaming') phase.value = 'ready'
      })
      abort = null
      sending = null
      if (reply.current?.text) {
        onEvent({ type: 'message', role: 'assistant', content: reply.current.text })
        if (!isOpen.value) unread.value++
      }
      share()
    }
    return true
  }

  /** The stop button: keeps what arrived so far, ends the stream and tells the server to stop generating. */
  const stop = () => {
    if (!abort) return
    abort.abort()
    if (session) transport.stop(session).catch(() => {})
  }

  const retry = async () => {
    // Retry pressed as the error's notice appeared: the failed stream ends first, then is retried.
    await sending?.catch(() => {})
    const message = lastFailed
    problem.value = null
    if (!message) return
    // The failed attempt (the message and any partial reply after it) gives way to the new one.
    const items = entries.value
    const failedAt = items.map((item) => item.kind === 'user' && item.text === message).lastIndexOf(true)
    if (failedAt >= 0) entries.value = items.slice(0, failedAt)
    await send(message)
  }

  const endConversation = async () => {
    const ending = session
    stop()
    session = null
    store.clear()
    batch(() => {
      phase.value = 'ended'
      append(entry('ended', ''))
    })
    share()
    onEvent({ type: 'conversation-end' })
    if (ending) await transport.end(ending).catch(() => {})
  }

  /** A live caption of a voice call joins the same transcript: one line per segment, updated in place. */
  const caption = ({ id, role, text, isFinal }: Caption) => {
    const line: Entry = { id: `v${id}`, kind: role, text, isSpoken: true, isPartial: !isFinal }
    const isNew = !entries.value.some((item) => item.id === line.id)
    entries.value = isNew
      ? [...entries.value, line]
      : entries.value.map((item) => (item.id === line.id ? line : item))
    if (isFinal) onEvent({ type: 'message', role, content: text })
    share()
  }

  const startNew = async () => {
    batch(() => {
      entries.value = []
      problem.value = null
      phase.value = 'idle'
    })
    await start()
  }

  channel.listen((message) => {
    if (message.type === 'hello') return session && share()
    // Another tab owns this turn: mirror its transcript and live reply, never open a stream here.
    // A reply finished in the other tab: its stream ended with an answer (a mirrored greeting is no reply).
    const isFinishedReply =
      phase.value === 'streaming' && !message.isStreaming && message.entries.at(-1)?.kind === 'assistant'
    batch(() => {
      entries.value = message.entries
      phase.value = message.isStreaming ? 'streaming' : message.conversationId ? 'ready' : phase.value
      isAwaitingFirstChunk.value = message.isStreaming && message.entries.at(-1)?.kind === 'user'
      if (isFinishedReply && !isOpen.value) unread.value++
    })
    if (message.conversationId && !session) session = store.load()
  })
  channel.post({ type: 'hello' })

  const setOpen = (open: boolean) => {
    isOpen.value = open
    if (open) unread.value = 0
  }

  const dispose = () => {
    stop()
    clearInterval(ticker)
    channel.close()
  }

  return {
    entries,
    phase,
    isAwaitingFirstChunk,
    toolStatus,
    problem,
    retrySeconds,
    agentName,
    isVoiceOff,
    isOpen,
    unread,
    hasUserMessage,
    start,
    send,
    stop,
    retry,
    endConversation,
    startNew,
    caption,
    setOpen,
    /** On load: brings back a stored conversation without creating one for a visitor who never opens the panel. */
    resume: async () => (store.load() ? start() : null),
    dispose,
  }
}

export type ChatModel = ReturnType<typeof createChatModel>
