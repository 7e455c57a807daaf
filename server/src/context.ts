import type { Catalogue } from '@parley/shared'
import type { Kysely } from 'kysely'
import type { Logger } from 'pino'
import type { Clock } from './clock.ts'
import type { Config } from './config.ts'
import type { Database } from './db/index.ts'
import type { RateLimits } from './http/rate-limit.ts'
import type { Signals } from './http/signals.ts'
import type { StreamRegistry } from './http/streams.ts'
import type { LiveKit } from './providers/livekit.ts'
import type { RedisClient } from './redis.ts'

/*
 * The job queue and the key cache are declared here, where every service meets them, and built
 * by jobs/scheduler.ts and keys/cache.ts: the context imports no area.
 */

export type JobHandler<T> = (data: T) => Promise<void>

/** The job queue as the rest of the server sees it: define handlers, enqueue now or later. */
export type Jobs = {
  define: <T extends Record<string, unknown>>(
    name: string,
    handler: JobHandler<T>,
    options?: { concurrency?: number },
  ) => void
  now: (name: string, data: Record<string, unknown>) => Promise<void>
  schedule: (when: Date, name: string, data: Record<string, unknown>) => Promise<void>
  /** One repeating job of this name for the whole deployment (Agenda keeps a single record). */
  every: (intervalMs: number, name: string) => Promise<void>
  /** Starts processing (ROLE worker or all); enqueueing works without it. */
  start: () => Promise<void>
  stop: () => Promise<void>
}

/** What authentication needs to know about a key, read once per cache lifetime. */
export type KeyCredential = {
  id: string
  organizationId: string
  type: 'secret' | 'widget'
  status: 'active' | 'disabled' | 'revoked'
  allowedDomains: string[]
  expiresAt: Date
  tier: 'free' | 'pro' | 'enterprise'
  rateLimitPerMinute: number | null
}

export type KeyCache = {
  get: (hash: string) => KeyCredential | undefined
  set: (hash: string, credential: KeyCredential) => void
  /** Drops every entry of the key on this instance. */
  forget: (keyId: string) => void
  size: () => number
}

/** What every service needs, built once at boot and passed down explicitly. */
export type AppContext = Readonly<{
  /** This instance's id in server_instances (its heartbeat) and on the replies it streams. */
  instanceId: string
  config: Config
  db: Kysely<Database>
  logger: Logger
  /** Models, STT, TTS, voices and built-in functions this deployment offers. */
  catalogue: Catalogue
  /** Null: in-process rate limits and signals. */
  redis: RedisClient | null
  /** Cross-instance events (Redis pub/sub when configured). */
  signals: Signals
  keyCache: KeyCache
  streams: StreamRegistry
  rateLimits: RateLimits
  /** Agenda on PostgreSQL: webhook retries, expiry, dialing. */
  jobs: Jobs
  /** "Now" for batch scheduling and calling windows; tests give a fake one. */
  clock: Clock
  /** Null when LIVEKIT_* is unset: voice answers the spec's 500 "media server" error. */
  livekit: LiveKit | null
  /**
   * orgs/' reader of an organization's provider keys (opened), for providers/registry.ts, which
   * imports no area: the keys for `providers` the organization has, by provider id.
   */
  readProviderKeys: (
    ctx: AppContext,
    input: { organizationId: string; providers: readonly string[] },
  ) => Promise<Map<string, string>>
}>
