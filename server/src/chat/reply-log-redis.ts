import type { ChatStreamEventName } from '@parley/shared'
import type { Logger } from 'pino'
import type { RedisClient } from '../redis.ts'
import {
  isFinalEvent,
  type LoggedEvent,
  REPLY_RETENTION_MS,
  type ReplyLog,
  type ReplyOwner,
  type ReplyScope,
} from './reply-log-contract.ts'

/** How long one blocking read waits before checking that the reply still exists. */
const BLOCK_MS = 5000
const READ_BATCH = 500

type StreamEntries = [id: string, fields: string[]][]

/** `…:request` holds the request's hash and the generating instance, one space apart. */
const encodeOwner = ({ requestHash, instanceId }: ReplyOwner) =>
  instanceId ? `${requestHash} ${instanceId}` : requestHash
const decodeOwner = (value: string): ReplyOwner => {
  const [requestHash = '', instanceId] = value.split(' ')
  return { requestHash, instanceId: instanceId ?? null }
}

/**
 * Resumable replies in Redis: `…:request` holds the key's owner (encodeOwner), `…:events` is a stream
 * whose entry ids are `0-<event id>`, so "after event n" is simply XREAD from `0-n`. Both expire
 * REPLY_RETENTION_MS after the last event.
 */
export const createRedisReplyLog = ({
  redis,
  logger,
  retentionMs = REPLY_RETENTION_MS,
}: {
  redis: RedisClient
  logger: Logger
  retentionMs?: number
}): ReplyLog => {
  const keysOf = ({ conversationId, idempotencyKey }: ReplyScope) => {
    const base = `parley:chat-reply:${conversationId}:${idempotencyKey}`
    return { request: `${base}:request`, events: `${base}:events` }
  }
  const toEvent = ([id, fields]: StreamEntries[number]): LoggedEvent => ({
    id: Number(id.slice(2)),
    event: fields[1] as ChatStreamEventName,
    data: JSON.parse(fields[3] ?? 'null'),
  })

  return {
    reserve: async (scope, owner) => {
      const { request } = keysOf(scope)
      for (;;) {
        if ((await redis.set(request, encodeOwner(owner), 'PX', retentionMs, 'NX')) === 'OK')
          return { heldBy: null }
        const heldBy = await redis.get(request)
        // Null: it expired between the two calls; take it.
        if (heldBy !== null) return { heldBy: decodeOwner(heldBy) }
      }
    },
    drop: async (scope) => {
      const { request, events } = keysOf(scope)
      await redis.del(request, events)
    },
    append: (scope, { id, event, data }) => {
      const { request, events } = keysOf(scope)
      // One connection keeps the commands in order, so nothing here needs awaiting.
      redis
        .multi()
        .xadd(events, `0-${id}`, 'event', event, 'data', JSON.stringify(data))
        .pexpire(events, retentionMs)
        .pexpire(request, retentionMs)
        .exec()
        .catch((error: unknown) =>
          logger.warn({ err: error, conversationId: scope.conversationId }, 'could not record a reply event'),
        )
    },
    follow: async function* ({ scope, afterId, signal, checkEveryMs, isCutOff }) {
      const { request, events } = keysOf(scope)
      // A blocking read holds its connection, so each follower reads on one of its own.
      const reader = redis.duplicate({ enableOfflineQueue: true })
      reader.on('error', (error) => logger.warn({ err: error }, 'redis reply reader error'))
      const stop = () => reader.disconnect()
      signal.addEventListener('abort', stop, { once: true })
      let next = `0-${afterId}`
      try {
        while (!signal.aborted) {
          const answer = (await reader.xread(
            'COUNT',
            READ_BATCH,
            'BLOCK',
            Math.min(BLOCK_MS, isCutOff ? (checkEveryMs ?? BLOCK_MS) : BLOCK_MS),
            'STREAMS',
            events,
            next,
          )) as [key: string, entries: StreamEntries][] | null
          const entries = answer?.[0]?.[1] ?? []
          for (const entry of entries) {
            const event = toEvent(entry)
            yield event
            next = entry[0]
            if (isFinalEvent(event.event)) return
          }
          // Nothing new for a while: stop if the reply is gone (retention over, never started, or
          // cut off by the death of its instance).
          if (entries.length > 0) continue
          if ((await reader.exists(request)) === 0) return
          if (isCutOff && (await isCutOff())) return
        }
      } catch (error) {
        if (!signal.aborted) throw error
      } finally {
        signal.removeEventListener('abort', stop)
        reader.disconnect()
      }
    },
  }
}
