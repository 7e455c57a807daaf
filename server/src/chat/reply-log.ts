import type { ChatStreamEventName } from '@parley/shared'
import type { AppContext } from '../context.ts'
import { createRedisReplyLog } from './reply-log-redis.ts'

/** How long a resumable reply's events stay readable after its last event. */
export const REPLY_RETENTION_MS = 5 * 60 * 1000

/** One reply of one conversation, named by the Idempotency-Key of its send. */
export type ReplyScope = { conversationId: string; idempotencyKey: string }

/** One SSE event of a reply; `id` is its position (1, 2, …) and never changes on replay. */
export type LoggedEvent = { id: number; event: ChatStreamEventName; data: unknown }

/** The events that close a reply: a follower stops after one of them. */
export const isFinalEvent = (event: ChatStreamEventName) => event === 'stream_end' || event === 'error'

/**
 * The events of resumable replies, so a retry of the same send can replay what the client missed
 * and follow the rest. In this process without Redis; a Redis stream per reply otherwise, so the
 * retry may land on another instance.
 */
export type ReplyLog = {
  /**
   * Takes the key for a new reply of this request; when the key already holds a reply, returns
   * that reply's request hash instead (the caller resumes it, or refuses another body).
   */
  reserve: (scope: ReplyScope, requestHash: string) => Promise<{ heldBy: string | null }>
  /** Frees a key whose reply never started (it was refused before streaming). */
  drop: (scope: ReplyScope) => Promise<void>
  /** Records an event; never awaited on the streaming path, errors are the log's to report. */
  append: (scope: ReplyScope, event: LoggedEvent) => void
  /** Events after `afterId`, then the live ones, until a final event, the retention, or `signal`. */
  follow: (scope: ReplyScope, afterId: number, signal: AbortSignal) => AsyncIterable<LoggedEvent>
}

type LocalReply = {
  requestHash: string
  events: LoggedEvent[]
  wake: Set<() => void>
  expiry: NodeJS.Timeout
}

/** The log of a single process: replies live in memory until their retention ends. */
export const createLocalReplyLog = (retentionMs = REPLY_RETENTION_MS): ReplyLog => {
  const replies = new Map<string, LocalReply>()
  const nameOf = ({ conversationId, idempotencyKey }: ReplyScope) => `${conversationId}\n${idempotencyKey}`

  return {
    reserve: async (scope, requestHash) => {
      const name = nameOf(scope)
      const held = replies.get(name)
      if (held) return { heldBy: held.requestHash }
      const expiry = setTimeout(() => replies.delete(name), retentionMs)
      expiry.unref()
      replies.set(name, { requestHash, events: [], wake: new Set(), expiry })
      return { heldBy: null }
    },
    drop: async (scope) => {
      const reply = replies.get(nameOf(scope))
      if (!reply) return
      clearTimeout(reply.expiry)
      replies.delete(nameOf(scope))
      for (const wake of reply.wake) wake()
    },
    append: (scope, event) => {
      const reply = replies.get(nameOf(scope))
      if (!reply) return
      reply.events.push(event)
      reply.expiry.refresh()
      for (const wake of reply.wake) wake()
    },
    follow: async function* (scope, afterId, signal) {
      const name = nameOf(scope)
      let next = afterId
      for (;;) {
        const reply = replies.get(name)
        if (!reply || signal.aborted) return
        // Ids are positions, so the events after `next` start at index `next`.
        for (const event of reply.events.slice(next)) {
          yield event
          next = event.id
          if (isFinalEvent(event.event)) return
        }
        await new Promise<void>((resolve) => {
          const wake = () => {
            reply.wake.delete(wake)
            signal.removeEventListener('abort', wake)
            resolve()
          }
          reply.wake.add(wake)
          signal.addEventListener('abort', wake, { once: true })
        })
      }
    },
  }
}

const logs = new WeakMap<AppContext, ReplyLog>()

/** The instance's reply log: Redis when configured (shared by every instance), else in process. */
export const replyLogOf = (ctx: AppContext): ReplyLog => {
  let log = logs.get(ctx)
  if (!log) {
    log = ctx.redis ? createRedisReplyLog({ redis: ctx.redis, logger: ctx.logger }) : createLocalReplyLog()
    logs.set(ctx, log)
  }
  return log
}
