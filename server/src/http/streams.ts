import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { RedisClient } from '../redis.ts'
import { AppError } from './app-error.ts'
import type { Signals } from './signals.ts'
import type { EventStream } from './sse.ts'

/** Who opens a stream: its organization, and the API key when a key (not a studio session) did. */
export type StreamOwner = { organizationId: string; keyId: string | null }

/** A place among the open streams, taken before a stream opens; released once, however often asked. */
export type StreamSlot = {
  /** Holds the place until `stream` closes (and ends the stream when its key is revoked). */
  attach: (stream: EventStream) => void
  release: () => void
}

export type StreamRegistry = {
  /**
   * Takes a place for one more open stream of `owner`, or refuses with 429 `too_many_streams`
   * when its key or its organization already holds its limit (STREAMS_PER_KEY,
   * STREAMS_PER_ORGANIZATION), counted across instances when Redis is configured.
   */
  admit: (owner: StreamOwner) => Promise<StreamSlot>
  countOpen: (keyId: string) => number
  /** Stops refreshing this instance's leases (Redis). */
  close: () => void
}

export const KEY_REVOKED_MESSAGE = 'The API key of this session was revoked'

/** A stream's place in Redis outlives a dead instance by at most this. */
const LEASE_MS = 30_000
/** A refused stream is told to try again after this many seconds. */
const RETRY_AFTER_SECONDS = 5

const tooManyStreams = (scope: 'key' | 'organization', limit: number) =>
  new AppError({
    status: 429,
    code: 'too_many_streams',
    message: `Too many open streams for this ${scope === 'key' ? 'API key' : 'organization'} (at most ${limit} at once); close one or retry in ${RETRY_AFTER_SECONDS} s`,
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  })

/** What counts open streams: in this process, or in Redis across every instance. */
type Counter = {
  /** Answers which limit refused it, or null when the place was taken. */
  take: (owner: StreamOwner, id: string) => Promise<'key' | 'organization' | null>
  give: (owner: StreamOwner, id: string) => void
  close: () => void
}

const keyScope = (keyId: string) => `key:${keyId}`
const organizationScope = (organizationId: string) => `org:${organizationId}`

const localCounter = (limits: { perKey: number; perOrganization: number }): Counter => {
  const open = new Map<string, number>()
  const add = (scope: string, change: number) => {
    const next = (open.get(scope) ?? 0) + change
    if (next > 0) open.set(scope, next)
    else open.delete(scope)
  }
  return {
    take: async ({ organizationId, keyId }) => {
      if (keyId && (open.get(keyScope(keyId)) ?? 0) >= limits.perKey) return 'key'
      if ((open.get(organizationScope(organizationId)) ?? 0) >= limits.perOrganization) return 'organization'
      if (keyId) add(keyScope(keyId), 1)
      add(organizationScope(organizationId), 1)
      return null
    },
    give: ({ organizationId, keyId }) => {
      if (keyId) add(keyScope(keyId), -1)
      add(organizationScope(organizationId), -1)
    },
    close: () => undefined,
  }
}

/**
 * One sorted set per key and per organization: a member per open stream, scored by when its lease
 * ends. Each instance renews its streams' leases every third of LEASE_MS, so the places of a dead
 * instance's streams free themselves within LEASE_MS. Admission is one script: expired places
 * dropped, both counts read, both places taken, or none.
 */
const ADMIT = `
local now = tonumber(ARGV[1])
local hasKey = ARGV[4] == '1'
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if hasKey then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[5]) then return 1 end
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) then return 2 end
if hasKey then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[7])
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
return 0`

const redisCounter = (
  redis: RedisClient,
  limits: { perKey: number; perOrganization: number },
  logger: Logger,
): Counter => {
  const setOf = (scope: string) => `parley:streams:${scope}`
  const sets = ({ organizationId, keyId }: StreamOwner) => [
    setOf(keyId ? keyScope(keyId) : 'none'),
    setOf(organizationScope(organizationId)),
  ]
  const mine = new Map<string, StreamOwner>()
  const renew = () => {
    if (mine.size === 0) return
    const until = Date.now() + LEASE_MS
    const pipeline = redis.pipeline()
    for (const [id, owner] of mine) {
      const [keySet, organizationSet] = sets(owner)
      if (owner.keyId) pipeline.zadd(keySet as string, 'XX', until, id)
      pipeline.zadd(organizationSet as string, 'XX', until, id)
    }
    pipeline
      .exec()
      .catch((error: unknown) => logger.warn({ err: error }, 'could not renew open-stream leases'))
  }
  const timer = setInterval(renew, LEASE_MS / 3)
  timer.unref()
  return {
    take: async (owner, id) => {
      const now = Date.now()
      const answer = await redis.eval(
        ADMIT,
        2,
        ...sets(owner),
        now,
        now + LEASE_MS,
        id,
        owner.keyId ? '1' : '0',
        limits.perKey,
        limits.perOrganization,
        LEASE_MS * 2,
      )
      if (answer === 1) return 'key'
      if (answer === 2) return 'organization'
      mine.set(id, owner)
      return null
    },
    give: (owner, id) => {
      mine.delete(id)
      const [keySet, organizationSet] = sets(owner)
      const pipeline = redis.pipeline()
      if (owner.keyId) pipeline.zrem(keySet as string, id)
      pipeline.zrem(organizationSet as string, id)
      // A miss frees itself when its lease ends.
      pipeline
        .exec()
        .catch((error: unknown) => logger.warn({ err: error }, 'could not free an open-stream place'))
    },
    close: () => clearInterval(timer),
  }
}

/**
 * Open SSE streams: their places under the per-key and per-organization caps, and this instance's
 * streams by API key. When any instance revokes a key, every stream opened with it gets the spec's
 * `error` event and is closed.
 */
export const createStreamRegistry = ({
  signals,
  redis,
  limits,
  logger,
}: {
  signals: Signals
  redis: RedisClient | null
  limits: { perKey: number; perOrganization: number }
  logger: Logger
}): StreamRegistry => {
  const counter = redis ? redisCounter(redis, limits, logger) : localCounter(limits)
  const byKey = new Map<string, Set<EventStream>>()
  signals.subscribe('key.revoked', ({ keyId }) => {
    const streams = byKey.get(keyId)
    byKey.delete(keyId)
    for (const stream of streams ?? []) {
      stream.send('error', { error: KEY_REVOKED_MESSAGE })
      stream.close()
    }
  })
  const track = (keyId: string, stream: EventStream) => {
    const streams = byKey.get(keyId) ?? new Set()
    streams.add(stream)
    byKey.set(keyId, streams)
    stream.onClose(() => {
      streams.delete(stream)
      if (streams.size === 0 && byKey.get(keyId) === streams) byKey.delete(keyId)
    })
  }
  return {
    admit: async (owner) => {
      const id = randomUUID()
      let refusedBy: 'key' | 'organization' | null
      try {
        refusedBy = await counter.take(owner, id)
      } catch (error) {
        throw AppError.unavailable('Could not count open streams', error)
      }
      if (refusedBy)
        throw tooManyStreams(refusedBy, refusedBy === 'key' ? limits.perKey : limits.perOrganization)
      let isReleased = false
      const release = () => {
        if (isReleased) return
        isReleased = true
        counter.give(owner, id)
      }
      return {
        attach: (stream) => {
          if (owner.keyId) track(owner.keyId, stream)
          stream.onClose(release)
        },
        release,
      }
    },
    countOpen: (keyId) => byKey.get(keyId)?.size ?? 0,
    close: () => counter.close(),
  }
}
