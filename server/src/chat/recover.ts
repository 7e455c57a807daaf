import { findOrphanedReplyHolds, type OrphanedReplyHold, settleHold } from '../billing/index.ts'
import type { AppContext } from '../context.ts'
import { aliveAfter } from '../instances/liveness.ts'
import { priceReply, replyCharge } from './billing.ts'
import { countOutputTokens } from './reply-cost.ts'
import * as store from './store.ts'

/** Holds settled per look; more wait for the next heartbeat. */
const BATCH = 50

/**
 * What a reply cut off by its instance's death cost: the rounds it had finished (recorded on its
 * hold as they finished) and, for the round in progress, its prompt and the text its last
 * checkpoint shows was streamed, counted. A round whose checkpoint holds no text yet is not
 * charged: nothing shows that its request reached the model.
 */
const priceCutOffReply = async (ctx: AppContext, hold: OrphanedReplyHold) => {
  const content = (await store.findMessageContent(ctx.db, hold.messageId)) ?? ''
  const text = content.slice(hold.textOffset)
  const outputTokens = countOutputTokens(ctx, { model: hold.model, text })
  const inputTokens = text === '' ? 0 : hold.promptTokens
  const roundMicros = priceReply(ctx.config, { model: hold.model, usage: { inputTokens, outputTokens } })
  return { inputTokens, outputTokens, costMicros: hold.usedMicros + roundMicros }
}

/**
 * Settles the holds of replies whose instance died mid-reply (kill -9, power loss): each is
 * charged what its checkpoint shows was streamed, in one transaction with the hold's removal, so
 * two instances finding it at once charge it once.
 */
export const settleCutOffReplies = async (ctx: AppContext) => {
  const holds = await findOrphanedReplyHolds(ctx.db, {
    aliveAfter: aliveAfter(ctx),
    instanceId: ctx.instanceId,
    limit: BATCH,
  })
  for (const hold of holds) {
    const usage = await priceCutOffReply(ctx, hold)
    const charged = await ctx.db.transaction().execute(async (tx) => {
      const taken = await settleHold(ctx, tx, {
        id: hold.id,
        charge: replyCharge({
          organizationId: hold.organizationId,
          conversationId: hold.conversationId,
          costMicros: usage.costMicros,
          reason: 'Chat reply (cut off)',
        }),
      })
      if (taken !== null)
        await store.addReplyUsage(
          tx,
          {
            id: hold.conversationId,
            inputTokens: usage.inputTokens,
            outputTokens: usage.outputTokens,
            costMicros: taken,
          },
          { isEnding: false },
        )
      return taken
    })
    if (charged !== null)
      ctx.logger.info(
        { conversationId: hold.conversationId, instanceId: hold.instanceId, costMicros: charged },
        'charged a reply cut off by a dead instance, from its checkpoint',
      )
  }
  return holds.length
}

/** Looks once a heartbeat (INSTANCE_HEARTBEAT_MS), as the dialer does for its claims. Returns the stop. */
export const startReplyRecovery = (ctx: AppContext) => {
  let running: Promise<unknown> | null = null
  const look = () => {
    if (running) return
    running = settleCutOffReplies(ctx)
      .catch((error: unknown) => ctx.logger.warn({ err: error }, 'could not settle cut-off replies'))
      .finally(() => {
        running = null
      })
  }
  const timer = setInterval(look, ctx.config.instanceHeartbeatMs)
  timer.unref()
  return async () => {
    clearInterval(timer)
    await running
  }
}
