import { ulid } from 'ulid'
import * as holdStore from '../billing/hold-store.ts'
import * as chatStore from '../chat/store.ts'
import type { AppContext } from '../context.ts'
import * as store from './store.ts'

/** An instance silent for this many heartbeats is dead. */
const BEATS_TO_DEATH = 3

export const newInstanceId = () => `inst_${ulid()}`

/** Heartbeats older than this belong to dead instances. */
export const aliveAfter = (ctx: Pick<AppContext, 'config'>, now = new Date()) =>
  new Date(now.getTime() - BEATS_TO_DEATH * ctx.config.instanceHeartbeatMs)

/**
 * Recovers what dead instances left: their reply slots (each reply's saved text kept as a partial
 * message), and their credit holds and expired ones. Also what extension points other domains
 * register (dial claims) run here. Every instance runs it each heartbeat; the statements skip or
 * wait on rows another instance is recovering, so running it twice at once is harmless.
 */
export const recoverDeadInstances = async (
  ctx: AppContext,
  extra: Array<(ctx: AppContext) => Promise<unknown>>,
) => {
  const now = new Date()
  const cutoff = aliveAfter(ctx, now)
  await store.forgetDeadInstances(ctx.db, cutoff)
  const replies = await chatStore.recoverDeadReplies(ctx.db, { aliveAfter: cutoff, now, idPrefix: ulid() })
  if (replies.length > 0) ctx.logger.warn({ conversations: replies }, 'replies of a dead instance recovered')
  const holds = await holdStore.releaseAbandonedHolds(ctx.db, { now, aliveAfter: cutoff })
  if (holds > 0) ctx.logger.warn({ holds }, 'credit holds of dead instances or past expiry released')
  for (const recover of extra) await recover(ctx)
}

/**
 * Registers this instance and beats every INSTANCE_HEARTBEAT_MS, recovering what dead instances
 * left each time. Embedded mode (PGlite) is one process, so a start proves every earlier
 * instance dead and their leftovers are recovered before the first request. Answers stop(),
 * which removes the instance (its work was drained before).
 */
export const startLiveness = async (
  ctx: AppContext,
  {
    isEmbedded,
    recoverers = [],
  }: { isEmbedded: boolean; recoverers?: Array<(ctx: AppContext) => Promise<unknown>> },
) => {
  await store.registerInstance(ctx.db, { id: ctx.instanceId, now: new Date() })
  if (isEmbedded) await store.forgetOtherInstances(ctx.db, ctx.instanceId)
  await recoverDeadInstances(ctx, recoverers)
  let running: Promise<void> | null = null
  const tick = async () => {
    try {
      await store.beat(ctx.db, { id: ctx.instanceId, now: new Date() })
      await recoverDeadInstances(ctx, recoverers)
    } catch (error) {
      ctx.logger.warn({ err: error }, 'instance heartbeat or recovery failed')
    }
  }
  const timer = setInterval(() => {
    running ??= tick().finally(() => {
      running = null
    })
  }, ctx.config.instanceHeartbeatMs)
  timer.unref()
  return async () => {
    clearInterval(timer)
    await running
    await store.removeInstance(ctx.db, ctx.instanceId).catch(() => undefined)
  }
}
