import { afterEach, describe, expect, it, vi } from 'vitest'
import { MAX_MESSAGE_LENGTH, toStreamEvent } from './contract.ts'
import { createFakeTransport, createMemoryBus, createMemoryStore } from './fake-transport.ts'
import { type ChatModelEvent, createChatModel } from './model.ts'
import { TransportError } from './transport.ts'

const setup = (
  options: { store?: ReturnType<typeof createMemoryStore>; bus?: ReturnType<typeof createMemoryBus> } = {},
) => {
  const fake = createFakeTransport()
  const events: ChatModelEvent[] = []
  const store = options.store ?? createMemoryStore()
  const model = createChatModel({
    agentId: 'agent-1',
    transport: fake.transport,
    store,
    channel: (options.bus ?? createMemoryBus())(),
    onEvent: (event) => events.push(event),
  })
  return { fake, model, events, store }
}

const texts = (model: ReturnType<typeof setup>['model']) =>
  model.entries.value.map((entry) => `${entry.kind}:${entry.text}`)

afterEach(() => vi.useRealTimers())

describe('chat model', () => {
  it('creates one session on start, shows the greeting and keeps the session for a reload', async () => {
    const { fake, model, store } = setup()
    await Promise.all([model.start(), model.start()])
    expect(fake.sessions).toHaveLength(1)
    expect(texts(model)).toEqual(['assistant:Hello!'])
    expect(model.agentName.value).toBe('Guide')
    expect(store.value?.conversationId).toBe('c1')
  })

  it('streams a reply chunk by chunk, with the typing state before the first chunk', async () => {
    const { fake, model, events } = setup()
    const seen: string[] = []
    fake.script(async ({ onEvent }) => {
      seen.push(`typing=${model.isAwaitingFirstChunk.value}`)
      onEvent({ type: 'stream_start', agentName: 'Guide' })
      onEvent({ type: 'tool_call', name: 'lookup_order' })
      seen.push(`tool=${model.toolStatus.value}`)
      onEvent({ type: 'tool_result', name: 'lookup_order' })
      onEvent({ type: 'chunk', delta: 'Hel' })
      seen.push(`typing=${model.isAwaitingFirstChunk.value} text=${model.entries.value.at(-1)?.text}`)
      onEvent({ type: 'chunk', delta: 'lo there' })
      onEvent({ type: 'stream_end', endSession: false })
    })
    await model.send('  hi  ')
    expect(seen).toEqual(['typing=true', 'tool=lookup_order', 'typing=false text=Hel'])
    expect(texts(model)).toEqual(['assistant:Hello!', 'user:hi', 'assistant:Hello there'])
    expect(model.phase.value).toBe('ready')
    expect(events).toEqual([
      { type: 'message', role: 'user', content: 'hi' },
      { type: 'message', role: 'assistant', content: 'Hello there' },
    ])
  })

  it('keeps the sources of an answer on its line, and only http(s) links', async () => {
    const { fake, model } = setup()
    fake.reply(
      { type: 'stream_start', agentName: 'Guide' },
      {
        type: 'sources',
        sources: [{ title: 'Opening hours', url: 'https://shop.example/hours' }],
      },
      { type: 'chunk', delta: 'Nine to five.' },
      { type: 'stream_end', endSession: false },
    )
    await model.send('When are you open?')
    expect(model.entries.value.at(-1)).toMatchObject({
      text: 'Nine to five.',
      sources: [{ title: 'Opening hours', url: 'https://shop.example/hours' }],
    })
    const frame = toStreamEvent(
      'sources',
      JSON.stringify({ sources: [{ title: 'x', url: 'javascript:alert(1)', snippet: 's' }] }),
    )
    expect(frame).toEqual({ type: 'sources', sources: [{ title: 'x', url: null }] })
  })

  it('refuses empty and over-long messages without calling the API', async () => {
    const { fake, model } = setup()
    expect(await model.send('   ')).toBe(false)
    expect(await model.send('x'.repeat(MAX_MESSAGE_LENGTH + 1))).toBe(false)
    expect(await model.send('x'.repeat(MAX_MESSAGE_LENGTH))).toBe(true)
    expect(fake.sent).toHaveLength(1)
  })

  it('shows a handoff line and answers as the new agent from then on', async () => {
    const { fake, model } = setup()
    fake.reply(
      { type: 'chunk', delta: 'Let me transfer you.' },
      { type: 'handoff', toAgent: 'Billing' },
      { type: 'chunk', delta: 'Billing here.' },
      { type: 'stream_end', endSession: false },
    )
    await model.send('refund')
    expect(texts(model).slice(2)).toEqual([
      'assistant:Let me transfer you.',
      'handoff:Billing',
      'assistant:Billing here.',
    ])
    expect(model.agentName.value).toBe('Billing')
  })

  it('ends the session when stream_end says so', async () => {
    const { fake, model, events, store } = setup()
    fake.reply({ type: 'chunk', delta: 'Goodbye!' }, { type: 'stream_end', endSession: true })
    await model.send('bye')
    await vi.waitFor(() => expect(fake.ended).toEqual(['c1']))
    expect(model.phase.value).toBe('ended')
    expect(store.value).toBeNull()
    expect(events).toContainEqual({ type: 'conversation-end' })
    await model.startNew()
    expect(fake.sessions).toHaveLength(2)
    expect(texts(model)).toEqual(['assistant:Hello!'])
  })

  it('retries a message whose error notice came before its stream ended', async () => {
    const { fake, model } = setup()
    let endStream = () => {}
    fake.script(async ({ onEvent }) => {
      onEvent({ type: 'chunk', delta: 'partial' })
      onEvent({ type: 'error', message: 'upstream failed' })
      await new Promise<void>((resolve) => {
        endStream = resolve
      })
    })
    const first = model.send('hi')
    await vi.waitFor(() => expect(model.problem.value).toEqual({ kind: 'error' }))
    fake.reply({ type: 'chunk', delta: 'ok' }, { type: 'stream_end', endSession: false })
    const retried = model.retry()
    endStream()
    await Promise.all([first, retried])
    expect(fake.sent).toEqual(['hi', 'hi'])
    expect(texts(model)).toEqual(['assistant:Hello!', 'user:hi', 'assistant:ok'])
  })

  it('shows a mid-stream error event and retries the message once', async () => {
    const { fake, model, events } = setup()
    fake.reply({ type: 'chunk', delta: 'partial' }, { type: 'error', message: 'upstream failed' })
    await model.send('hi')
    expect(model.problem.value).toEqual({ kind: 'error' })
    expect(events).toContainEqual({ type: 'error', code: 'stream_error' })
    expect(model.phase.value).toBe('ready')
    fake.reply({ type: 'chunk', delta: 'ok' }, { type: 'stream_end', endSession: false })
    await model.retry()
    expect(model.problem.value).toBeNull()
    expect(fake.sent).toEqual(['hi', 'hi'])
    expect(texts(model)).toEqual(['assistant:Hello!', 'user:hi', 'assistant:ok'])
  })

  it('counts down a 429 from Retry-After and refuses to send until it reaches zero', async () => {
    vi.useFakeTimers({ now: 0 })
    const { fake, model } = setup()
    // Time passes before the refusal: the countdown still starts at Retry-After.
    await vi.advanceTimersByTimeAsync(2000)
    fake.script(async () => {
      throw new TransportError(429, 'rate_limited', 3)
    })
    await model.send('hi')
    expect(model.problem.value).toEqual({ kind: 'rate_limited', retryAt: 5000 })
    expect(model.retrySeconds.value).toBe(3)
    expect(await model.send('again')).toBe(false)
    await vi.advanceTimersByTimeAsync(1000)
    expect(model.retrySeconds.value).toBe(2)
    await vi.advanceTimersByTimeAsync(2000)
    expect(model.retrySeconds.value).toBe(0)
    fake.reply({ type: 'chunk', delta: 'fine' }, { type: 'stream_end', endSession: false })
    await model.retry()
    expect(texts(model).filter((text) => text === 'user:hi')).toHaveLength(1)
    expect(texts(model).at(-1)).toBe('assistant:fine')
  })

  it('says "unavailable" on 402 and reports the spec code', async () => {
    const { fake, model, events } = setup()
    fake.failCreate(new TransportError(402, 'insufficient_credits'))
    expect(await model.send('hi')).toBe(false)
    expect(model.problem.value).toEqual({ kind: 'unavailable' })
    expect(events).toContainEqual({ type: 'error', code: 'insufficient_credits' })
  })

  it('stop keeps what arrived and frees the composer', async () => {
    const { fake, model } = setup()
    fake.script(
      ({ onEvent, signal }) =>
        new Promise<void>((resolve) => {
          onEvent({ type: 'chunk', delta: 'partial' })
          signal.addEventListener('abort', () => resolve())
        }),
    )
    const sending = model.send('long story')
    await vi.waitFor(() => expect(model.entries.value.at(-1)?.text).toBe('partial'))
    expect(model.phase.value).toBe('streaming')
    model.stop()
    await sending
    expect(model.phase.value).toBe('ready')
    expect(texts(model).at(-1)).toBe('assistant:partial')
    expect(fake.stopped).toEqual(['c1'])
  })

  it('restores a stored conversation from history without creating a session', async () => {
    const store = createMemoryStore({
      conversationId: 'old',
      sessionToken: 't',
      agentName: 'Guide',
      greeting: 'Hello!',
    })
    const { fake, model } = setup({ store })
    fake.setHistory([
      { role: 'user', content: 'hi', isSpoken: false },
      { role: 'assistant', content: 'hey', isSpoken: false },
    ])
    await model.resume()
    expect(fake.sessions).toHaveLength(0)
    expect(texts(model)).toEqual(['assistant:Hello!', 'user:hi', 'assistant:hey'])
  })

  it('restores what was said in a voice call in the same timeline, marked as spoken', async () => {
    const store = createMemoryStore({
      conversationId: 'old',
      sessionToken: 't',
      agentName: 'Guide',
      greeting: null,
    })
    const { fake, model } = setup({ store })
    fake.setHistory([
      { role: 'user', content: 'typed', isSpoken: false },
      { role: 'user', content: 'said', isSpoken: true },
      { role: 'assistant', content: 'answered aloud', isSpoken: true },
    ])
    await model.resume()
    expect(model.entries.value.map((item) => [item.text, item.isSpoken])).toEqual([
      ['typed', false],
      ['said', true],
      ['answered aloud', true],
    ])
  })

  it('starts fresh silently when the stored session expired (404 or 401)', async () => {
    for (const status of [404, 401]) {
      const store = createMemoryStore({
        conversationId: 'old',
        sessionToken: 't',
        agentName: 'Guide',
        greeting: null,
      })
      const { fake, model, events } = setup({ store })
      fake.setHistory(new TransportError(status, 'session_not_found'))
      await model.start()
      expect(fake.sessions).toHaveLength(1)
      expect(store.value?.conversationId).toBe('c1')
      expect(model.problem.value).toBeNull()
      expect(events).toEqual([])
    }
  })

  it('does not create a session on load for a visitor without a stored conversation', async () => {
    const { fake, model } = setup()
    expect(await model.resume()).toBeNull()
    expect(fake.sessions).toHaveLength(0)
  })

  it('counts replies that arrive while the panel is closed', async () => {
    const { fake, model } = setup()
    model.setOpen(false)
    fake.reply({ type: 'chunk', delta: 'one' }, { type: 'stream_end', endSession: false })
    await model.send('a')
    expect(model.unread.value).toBe(1)
    model.setOpen(true)
    expect(model.unread.value).toBe(0)
  })

  it('mirrors another tab: its transcript and live reply, without a second session or stream', async () => {
    const bus = createMemoryBus()
    const store = createMemoryStore()
    const first = setup({ bus, store })
    const second = setup({ bus, store })
    let release = () => {}
    first.fake.script(
      ({ onEvent }) =>
        new Promise<void>((resolve) => {
          onEvent({ type: 'chunk', delta: 'live' })
          release = () => {
            onEvent({ type: 'stream_end', endSession: false })
            resolve()
          }
        }),
    )
    await first.model.start()
    expect(second.model.unread.value).toBe(0)
    const sending = first.model.send('hello')
    await vi.waitFor(() =>
      expect(texts(second.model)).toEqual(['assistant:Hello!', 'user:hello', 'assistant:live']),
    )
    expect(second.model.phase.value).toBe('streaming')
    release()
    await sending
    expect(second.model.phase.value).toBe('ready')
    expect(second.model.unread.value).toBe(1)
    second.fake.reply({ type: 'chunk', delta: 'from two' }, { type: 'stream_end', endSession: false })
    await second.model.send('second tab')
    expect(second.fake.sessions).toHaveLength(0)
    expect(texts(first.model).at(-1)).toBe('assistant:from two')
  })

  it('puts voice captions into the same transcript, one line per segment, updated until final', () => {
    const { model, events } = setup()
    model.caption({ id: 'a1', role: 'assistant', text: 'Hel', isFinal: false })
    model.caption({ id: 'u1', role: 'user', text: 'Hi', isFinal: true })
    model.caption({ id: 'a1', role: 'assistant', text: 'Hello there', isFinal: true })
    expect(texts(model)).toEqual(['assistant:Hello there', 'user:Hi'])
    expect(model.entries.value.map((entry) => entry.isPartial)).toEqual([false, false])
    expect(events).toEqual([
      { type: 'message', role: 'user', content: 'Hi' },
      { type: 'message', role: 'assistant', content: 'Hello there' },
    ])
  })
})
