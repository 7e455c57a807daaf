import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { createSignals } from '../http/signals.ts'
import { createKeyCache, KEY_CACHE_TTL_MS, type KeyCredential } from './cache.ts'

const credential = (id: string, organizationId = 'org-a'): KeyCredential => ({
  id,
  organizationId,
  type: 'secret',
  status: 'active',
  allowedDomains: [],
  expiresAt: new Date(Date.now() + 86_400_000),
  tier: 'free',
  rateLimitPerMinute: null,
})

/** In-process signals and a hand-moved clock: no timers, no waiting. */
const setup = async () => {
  let now = 1_000_000
  const signals = await createSignals({ redis: null, logger: pino({ level: 'silent' }) })
  const cache = createKeyCache({ signals, now: () => now })
  return { cache, signals, advance: (ms: number) => (now += ms) }
}

describe('key cache', () => {
  it('keeps an entry at most 60 s', async () => {
    const { cache, advance } = await setup()
    cache.set('hash-1', credential('k1'))
    advance(KEY_CACHE_TTL_MS - 1)
    expect(cache.get('hash-1')?.id).toBe('k1')
    advance(1)
    expect(cache.get('hash-1')).toBeUndefined()
    expect(cache.size()).toBe(0)
  })

  it('drops a key on key.changed and an organization’s keys on organization.changed', async () => {
    const { cache, signals } = await setup()
    cache.set('h1', credential('k1'))
    cache.set('h2', credential('k2'))
    cache.set('h3', credential('k3', 'org-b'))
    await signals.publish('key.changed', { keyId: 'k1' })
    expect(cache.get('h1')).toBeUndefined()
    expect(cache.get('h2')?.id).toBe('k2')
    await signals.publish('organization.changed', { organizationId: 'org-a' })
    expect(cache.get('h2')).toBeUndefined()
    expect(cache.get('h3')?.id).toBe('k3')
  })
})
