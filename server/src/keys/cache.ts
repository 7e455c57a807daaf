import type { KeyCache, KeyCredential } from '../context.ts'
import type { Signals } from '../http/signals.ts'

export type { KeyCache, KeyCredential } from '../context.ts'

export const KEY_CACHE_TTL_MS = 60_000
const MAX_ENTRIES = 10_000

/**
 * Per-instance cache of key lookups by SHA-256 digest. Entries live at most 60 s, so domain
 * edits reach every instance within a minute; status changes arrive at once as `key.changed`.
 */
export const createKeyCache = ({
  signals,
  ttlMs = KEY_CACHE_TTL_MS,
  now = Date.now,
}: {
  signals: Signals
  ttlMs?: number
  now?: () => number
}): KeyCache => {
  const entries = new Map<string, { credential: KeyCredential; expiresAt: number }>()
  const forget = (keyId: string) => {
    for (const [hash, entry] of entries) if (entry.credential.id === keyId) entries.delete(hash)
  }
  signals.subscribe('key.changed', ({ keyId }) => forget(keyId))
  signals.subscribe('organization.changed', ({ organizationId }) => {
    for (const [hash, entry] of entries)
      if (entry.credential.organizationId === organizationId) entries.delete(hash)
  })
  return {
    get: (hash) => {
      const entry = entries.get(hash)
      if (!entry) return undefined
      if (entry.expiresAt <= now()) {
        entries.delete(hash)
        return undefined
      }
      return entry.credential
    },
    set: (hash, credential) => {
      // Maps iterate in insertion order: the first entry is the oldest.
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string)
      entries.set(hash, { credential, expiresAt: now() + ttlMs })
    },
    forget,
    size: () => entries.size,
  }
}
