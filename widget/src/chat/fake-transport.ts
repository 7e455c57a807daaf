import type { TabChannel, TabMessage } from './channel.ts'
import type { ChatSession, HistoryMessage, StreamEvent } from './contract.ts'
import type { SessionStore } from './storage.ts'
import type { ChatTransport, SendInput } from './transport.ts'

/** A scripted chat API for the model's unit tests: each send plays the next script. */
export const createFakeTransport = () => {
  const sessions: ChatSession[] = []
  const sent: string[] = []
  const ended: string[] = []
  const stopped: string[] = []
  const scripts: Array<(input: SendInput) => Promise<void>> = []
  let history: HistoryMessage[] | Error = []
  let createError: Error | null = null
  const transport: ChatTransport = {
    createSession: async () => {
      if (createError) throw createError
      const session = {
        conversationId: `c${sessions.length + 1}`,
        sessionToken: 't',
        agentName: 'Guide',
        greeting: 'Hello!',
      }
      sessions.push(session)
      return session
    },
    history: async () => {
      if (history instanceof Error) throw history
      return history
    },
    send: async (input) => {
      sent.push(input.message)
      const script = scripts.shift()
      if (script) await script(input)
    },
    end: async (session) => {
      ended.push(session.conversationId)
    },
    stop: async (session) => {
      stopped.push(session.conversationId)
    },
  }
  return {
    transport,
    sessions,
    sent,
    ended,
    stopped,
    /** The next send emits these events in order. */
    reply: (...events: StreamEvent[]) =>
      scripts.push(async ({ onEvent }) => {
        for (const event of events) onEvent(event)
      }),
    script: (run: (input: SendInput) => Promise<void>) => scripts.push(run),
    setHistory: (value: HistoryMessage[] | Error) => {
      history = value
    },
    failCreate: (error: Error | null) => {
      createError = error
    },
  }
}

export const createMemoryStore = (
  initial: ChatSession | null = null,
): SessionStore & { value: ChatSession | null } => {
  const store = {
    value: initial,
    load: () => store.value,
    save: (session: ChatSession) => {
      store.value = session
    },
    clear: () => {
      store.value = null
    },
  }
  return store
}

/** Tabs joined by one in-memory bus; like BroadcastChannel, nobody hears their own posts. */
export const createMemoryBus = () => {
  const listeners = new Set<{ listener: (message: TabMessage) => void }>()
  return (): TabChannel => {
    const self = { listener: (_message: TabMessage) => {} }
    listeners.add(self)
    return {
      post: (message) => {
        const copy = structuredClone(message)
        for (const other of listeners) if (other !== self) other.listener(copy)
      },
      listen: (listener) => {
        self.listener = listener
      },
      close: () => listeners.delete(self),
    }
  }
}
