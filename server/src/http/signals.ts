import { randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import type { Logger } from 'pino'
import type { RedisClient } from '../redis.ts'

/** Every cross-instance signal and its payload. */
export type SignalMap = {
  /** A key's status, name or domains changed: drop it from every instance's cache. */
  'key.changed': { keyId: string }
  /** A key was revoked: end the streams and sessions opened with it. */
  'key.revoked': { keyId: string }
  /** An organization's tier or rate limit changed: drop its keys from every cache. */
  'organization.changed': { organizationId: string }
  /** Stop the conversation's reply in progress (the stop endpoint, or the session ended). */
  'chat.stop': { conversationId: string; reason: 'stopped' | 'ended' }
  /** A client started (+1) or stopped (-1) following a resumable reply, on whichever instance. */
  'chat.listeners': { conversationId: string; idempotencyKey: string; change: 1 | -1 }
  /** A batch job or one of its contacts changed: progress streams refresh, dialers look for work. */
  'batch.changed': { batchJobId: string }
  /** A call has new events (GET /v1/calls/{id}/events streams read them). */
  'call.event': { callId: string }
}
export type SignalName = keyof SignalMap

export type Signals = {
  /** Runs this instance's handlers at once, then tells the other instances (through Redis). */
  publish: <Name extends SignalName>(name: Name, payload: SignalMap[Name]) => Promise<void>
  subscribe: <Name extends SignalName>(name: Name, handler: (payload: SignalMap[Name]) => void) => () => void
  close: () => Promise<void>
}

const CHANNEL = 'parley:signals'
const SUBSCRIBE_WAIT_MS = 5000

type Envelope = { from: string; name: SignalName; payload: unknown }

/**
 * In-process signals, carried between instances by Redis pub/sub when a client is given. The
 * subscriber needs a connection of its own (a subscribed connection can run no other command).
 */
export const createSignals = async ({
  redis,
  logger,
}: {
  redis: RedisClient | null
  logger: Logger
}): Promise<Signals> => {
  const local = new EventEmitter()
  local.setMaxListeners(0)
  const instanceId = randomUUID()
  const deliver = (name: SignalName, payload: unknown) => {
    try {
      local.emit(name, payload)
    } catch (error) {
      logger.error({ err: error, signal: name }, 'signal handler failed')
    }
  }

  const subscriber = redis?.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null }) ?? null
  if (subscriber) {
    subscriber.on('error', (error) => logger.warn({ err: error }, 'redis subscriber error'))
    subscriber.on('message', (_channel: string, message: string) => {
      let envelope: Envelope
      try {
        envelope = JSON.parse(message) as Envelope
      } catch {
        logger.warn('ignored a malformed message on the signals channel')
        return
      }
      if (envelope.from !== instanceId) deliver(envelope.name, envelope.payload)
    })
    // Wait for the subscription so a fresh instance misses nothing, but do not let a Redis
    // outage block boot: ioredis subscribes once it connects, and caches expire within 60 s.
    const subscribed = subscriber.subscribe(CHANNEL).then(() => true)
    subscribed.catch((error: unknown) => logger.warn({ err: error }, 'redis subscribe failed'))
    const timeout = new Promise<false>((resolve) =>
      setTimeout(() => resolve(false), SUBSCRIBE_WAIT_MS).unref(),
    )
    if (!(await Promise.race([subscribed.catch(() => false), timeout])))
      logger.warn('signals: Redis subscription not ready; continuing, it completes when Redis answers')
  }

  return {
    publish: async (name, payload) => {
      deliver(name, payload)
      if (!redis) return
      try {
        await redis.publish(CHANNEL, JSON.stringify({ from: instanceId, name, payload } satisfies Envelope))
      } catch (error) {
        // Other instances still converge when their cache entries expire (60 s).
        logger.warn({ err: error, signal: name }, 'could not publish a signal to other instances')
      }
    },
    subscribe: (name, handler) => {
      const listener = handler as (payload: unknown) => void
      local.on(name, listener)
      return () => {
        local.off(name, listener)
      }
    },
    close: async () => {
      local.removeAllListeners()
      subscriber?.disconnect()
    },
  }
}
