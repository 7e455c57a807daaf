import type { Entry } from './entry.ts'

/** What tabs of one site tell each other about one agent's conversation. */
export type TabMessage =
  | { type: 'hello' }
  | { type: 'snapshot'; entries: Entry[]; isStreaming: boolean; conversationId: string | null }

export type TabChannel = {
  post: (message: TabMessage) => void
  listen: (listener: (message: TabMessage) => void) => void
  close: () => void
}

const isTabMessage = (value: unknown): value is TabMessage => {
  if (typeof value !== 'object' || value === null) return false
  const record = value as Record<string, unknown>
  if (record.type === 'hello') return true
  return (
    record.type === 'snapshot' && Array.isArray(record.entries) && typeof record.isStreaming === 'boolean'
  )
}

/** BroadcastChannel where it exists; a silent stand-in elsewhere (one tab then simply works alone). */
export const createTabChannel = (name: string): TabChannel => {
  if (typeof BroadcastChannel === 'undefined') return { post: () => {}, listen: () => {}, close: () => {} }
  const channel = new BroadcastChannel(name)
  return {
    post: (message) => channel.postMessage(message),
    listen: (listener) => {
      channel.onmessage = (event: MessageEvent<unknown>) => {
        // Another script on the page could post anything on a channel of the same name.
        if (isTabMessage(event.data)) listener(event.data)
      }
    },
    close: () => channel.close(),
  }
}
