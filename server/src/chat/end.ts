import * as agentStore from '../agents/index.ts'
import { toUsd } from '../billing/index.ts'
import type { AppContext } from '../context.ts'
import { ingestMemory } from '../memory/index.ts'
import { notifyAgent } from '../webhooks/index.ts'
import { forgetPlan } from './plan-cache.ts'
import * as store from './store.ts'

export const CHAT_EXPIRY_JOB = 'chat.expire'

/**
 * Queues a conversation's post-call analysis. The analysis is the analysis area's (which reads
 * conversations through chat/), so it registers this when loaded, and chat/ imports no analysis.
 */
export type ConversationAnalysisQueue = (ctx: AppContext, conversationId: string) => Promise<void>
let queueAnalysis: ConversationAnalysisQueue = async () => {}
export const registerConversationAnalysis = (queue: ConversationAnalysisQueue) => {
  queueAnalysis = queue
}
const TRANSCRIPT_ROWS = 500

/**
 * Schedules the session's idle check one idle period after `lastActivityAt`. A session has one
 * check at a time: a check that finds newer activity schedules the next one itself, so replies
 * queue no jobs.
 */
export const scheduleExpiry = async (
  ctx: AppContext,
  { conversationId, lastActivityAt = new Date() }: { conversationId: string; lastActivityAt?: Date },
) => {
  const when = new Date(lastActivityAt.getTime() + ctx.config.chatIdleTimeoutMs + 1000)
  await ctx.jobs.schedule(when, CHAT_EXPIRY_JOB, { conversationId })
}

/**
 * Ends (or expires) a session and runs the spec's end effects in its order: billing closed,
 * memory ingested, post-call analysis queued (when the agent asks for it), webhook fired, session removed. Returns
 * null when the session was not active: only one caller ever moves it, so the effects run once.
 */
export const endConversation = async (
  ctx: AppContext,
  {
    conversationId,
    status,
    idleBefore,
  }: { conversationId: string; status: 'ended' | 'expired'; idleBefore?: Date },
) => {
  // Billing closed: every reply was debited as it finished; this records the session's totals
  // and closes it in one conditional update, so concurrent ends settle (and debit) nothing twice.
  const closed = await store.closeConversation(ctx.db, {
    id: conversationId,
    status,
    ...(idleBefore ? { idleBefore } : {}),
  })
  if (!closed) return null
  forgetPlan(ctx, conversationId)

  const messages = await store.listMessages(ctx.db, { conversationId, limit: TRANSCRIPT_ROWS, offset: 0 })
  if (closed.memoryIdentity)
    ingestMemory(ctx, {
      organizationId: closed.organizationId,
      identity: closed.memoryIdentity,
      transcript: messages.map(({ role, content }) => ({ role, content })),
    })

  const agent = await agentStore.findAgent(ctx.db, {
    organizationId: closed.organizationId,
    id: closed.agentId,
  })
  if (agent?.postCallAnalysis) await queueAnalysis(ctx, conversationId)

  if (agent) {
    const endedAt = closed.endedAt ?? new Date()
    try {
      await notifyAgent(ctx, agent, 'chat.ended', {
        conversation_id: closed.id,
        agent_id: closed.agentId,
        agent_name: closed.agentName,
        duration: Math.max(0, Math.round((endedAt.getTime() - closed.createdAt.getTime()) / 1000)),
        message_count: await store.countMessages(ctx.db, conversationId),
        input_tokens: closed.inputTokens,
        output_tokens: closed.outputTokens,
        total_cost: toUsd(closed.costMicros),
      })
    } catch (error) {
      // The session is ended either way; the failure is logged with the conversation to redo it.
      ctx.logger.error({ err: error, conversationId }, 'could not queue the chat.ended webhook')
    }
  }

  // Session removed: a reply still streaming on any instance stops now.
  await ctx.signals.publish('chat.stop', { conversationId, reason: 'ended' })
  return closed
}

export const registerChatJobs = (ctx: AppContext) => {
  ctx.jobs.define<{ conversationId: string }>(CHAT_EXPIRY_JOB, async ({ conversationId }) => {
    const expired = await endConversation(ctx, {
      conversationId,
      status: 'expired',
      idleBefore: new Date(Date.now() - ctx.config.chatIdleTimeoutMs),
    })
    if (expired) return
    const conversation = await store.findConversation(ctx.db, conversationId)
    if (conversation?.status === 'active')
      await scheduleExpiry(ctx, { conversationId, lastActivityAt: conversation.lastActivityAt })
  })
}
