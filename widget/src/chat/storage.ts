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

/**
 * This browser's anonymous visitor id for an API host: a random UUID made once and kept. The
 * server files an unproven user_identifier's memory under it, so only this browser recalls it.
 */
export const visitorIdFor = (baseUrl: string, storage: Storage | null = safeLocalStorage()) => {
  const key = `parley:visitor:${baseUrl}`
  try {
    const known = storage?.getItem(key)
    if (known) return known
    const made = crypto.randomUUID()
    storage?.setItem(key, made)
    return made
  } catch {
    return crypto.randomUUID()
  }
}

/** Sandboxed iframes and some privacy modes throw on the mere access to localStorage. */
function safeLocalStorage(): Storage | null {
  try {
    return globalThis.localStorage ?? null
  } catch {
    return null
  }
}
