import type { AppContext } from '../context.ts'
import {
  isFinalEvent,
  type LoggedEvent,
  REPLY_RETENTION_MS,
  type ReplyLog,
  type ReplyOwner,
  type ReplyScope,
} from './reply-log-contract.ts'
import { createRedisReplyLog } from './reply-log-redis.ts'

export {
  type FollowOptions,
  isFinalEvent,
  type LoggedEvent,
  REPLY_RETENTION_MS,
  type ReplyLog,
  type ReplyOwner,
  type ReplyScope,
} from './reply-log-contract.ts'

type LocalReply = {
  owner: ReplyOwner
  events: LoggedEvent[]
  wake: Set<() => void>
  expiry: NodeJS.Timeout
}

/** The log of a single process: replies live in memory until their retention ends. */
export const createLocalReplyLog = (retentionMs = REPLY_RETENTION_MS): ReplyLog => {
  const replies = new Map<string, LocalReply>()
  const nameOf = ({ conversationId, idempotencyKey }: ReplyScope) => `${conversationId}\n${idempotencyKey}`

  return {
    reserve: async (scope, owner) => {
      const name = nameOf(scope)
      const held = replies.get(name)
      if (held) return { heldBy: held.owner }
      const expiry = setTimeout(() => replies.delete(name), retentionMs)
      expiry.unref()
      replies.set(name, { owner, events: [], wake: new Set(), expiry })
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
    follow: async function* ({ scope, afterId, signal, checkEveryMs, isCutOff }) {
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
            clearTimeout(check)
            reply.wake.delete(wake)
            signal.removeEventListener('abort', wake)
            resolve()
          }
          const check = isCutOff && checkEveryMs !== undefined ? setTimeout(wake, checkEveryMs) : undefined
          reply.wake.add(wake)
          signal.addEventListener('abort', wake, { once: true })
        })
        if (reply.events.length === next && isCutOff && (await isCutOff())) return
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
