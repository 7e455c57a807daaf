import type { ChatSession } from './contract.ts'

/** Where a conversation survives a reload: one localStorage entry per API host and agent. */
export type SessionStore = {
  load: () => ChatSession | null
  save: (session: ChatSession) => void
  clear: () => void
}

const isSession = (value: unknown): value is ChatSession => {
  if (typeof value !== 'object' || value === null) return false
  const record = value as Record<string, unknown>
  return typeof record.conversationId === 'string' && typeof record.sessionToken === 'string'
}

export const createSessionStore = (
  key: string,
  storage: Storage | null = safeLocalStorage(),
): SessionStore => ({
  load: () => {
    try {
      const value: unknown = JSON.parse(storage?.getItem(key) ?? 'null')
      return isSession(value) ? value : null
    } catch {
      return null
    }
  },
  save: (session) => {
    try {
      storage?.setItem(key, JSON.stringify(session))
    } catch {
      // Storage full or refused (private mode): the conversation still works, it just won't resume.
    }
  },
  clear: () => {
    try {
      storage?.removeItem(key)
    } catch {}
  },
})

/** Sandboxed iframes and some privacy modes throw on the mere access to localStorage. */
function safeLocalStorage(): Storage | null {
  try {
    return globalThis.localStorage ?? null
  } catch {
    return null
  }
}
