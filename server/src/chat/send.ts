import type { SendChatMessageHeaders } from '@parley/shared'
import type { Response } from 'express'
import { ulid } from 'ulid'
import * as agentStore from '../agents/store.ts'
import { releaseHold, requireHold } from '../billing/holds.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { openEventStream } from '../http/sse.ts'
import type { ChatSessionActor } from '../http/types.ts'
import { aliveAfter } from '../instances/liveness.ts'
import { trackReply } from './active-replies.ts'
import { assertCredits, CHAT_CREDITS_MESSAGE, chargeReply } from './billing.ts'
import { startCheckpoints } from './checkpoint.ts'
import {
  composePlan,
  isSamePlan,
  type PreparedReply,
  type ReplyPlan,
  readPlanParts,
  startPlan,
} from './plan.ts'
import { forgetPlan, predictPlan, rememberPlan } from './plan-cache.ts'
import { estimateTokens, HISTORY_ROWS, type Turn } from './prompt.ts'
import { type Emit, runReply } from './reply.ts'
import { type ReplyScope, replyLogOf } from './reply-log.ts'
import { followReply, reserveReply } from './resume.ts'
import { assertMessageLength, findActiveConversation, sessionNotFound } from './sessions.ts'
import * as store from './store.ts'

/** A reply slot older than this belongs to an instance that died mid-reply. */
export const STALE_REPLY_MS = 10 * 60 * 1000

/**
 * The session and the credits read one by one, in the order the checks have always had: each
 * refusal (401, 404, 402, or 503 when the billing store cannot answer) with its own code.
 */
const assertSessionMayReply = async (ctx: AppContext, actor: ChatSessionActor) => {
  const conversation = await findActiveConversation(ctx, actor)
  await assertCredits(ctx, conversation.organizationId)
  return conversation
}

/** Why the claim was refused: the session and credits, then the agent, then the reply slot. */
const explainRefusedClaim = async (ctx: AppContext, actor: ChatSessionActor): Promise<never> => {
  const conversation = await assertSessionMayReply(ctx, actor)
  const agent = await agentStore.findServingAgent(ctx.db, {
    organizationId: conversation.organizationId,
    id: conversation.currentAgentId,
  })
  if (!agent) throw sessionNotFound()
  throw AppError.conflict('A reply is already streaming in this session; wait for it to end')
}

/**
 * Everything that can refuse a new reply, before the stream opens (so refusals are plain JSON
 * errors with the spec's codes), in the one statement that takes the reply slot and stores the
 * user's message: the key, the session, the credits, the agent, one reply at a time. When the
 * statement fails, the reads one by one say which part did: a billing store that cannot answer
 * is the spec's 503, as it always was.
 */
const claimReply = async (ctx: AppContext, actor: ChatSessionActor, message: string) => {
  let context: store.ReplyContext | undefined
  try {
    context = await store.claimReply(ctx.db, {
      id: actor.conversationId,
      organizationId: actor.organizationId,
      keyId: actor.keyId,
      idleBefore: new Date(Date.now() - ctx.config.chatIdleTimeoutMs),
      staleBefore: new Date(Date.now() - STALE_REPLY_MS),
      aliveAfter: aliveAfter(ctx),
      instanceId: ctx.instanceId,
      minBalanceMicros: ctx.config.chatMinBalanceMicros,
      historyLimit: HISTORY_ROWS - 1,
      message: { id: ulid(), content: message, tokenCount: estimateTokens(message) },
    })
  } catch (error) {
    await assertSessionMayReply(ctx, actor)
    throw error
  }
  return context ?? explainRefusedClaim(ctx, actor)
}

/**
 * Reserves the reply's expected cost (CHAT_REPLY_HOLD_USD) before the claim: concurrent replies
 * can never together spend what the balance does not cover. A refused hold first lets the session
 * say what else is wrong with it (401, 404), then 402.
 */
const holdReply = async (ctx: AppContext, actor: ChatSessionActor) => {
  try {
    return await requireHold(ctx, {
      organizationId: actor.organizationId,
      amountMicros: ctx.config.chatReplyHoldMicros,
      kind: 'reply',
      reference: actor.conversationId,
      ttlMs: STALE_REPLY_MS,
      minBalanceMicros: ctx.config.chatMinBalanceMicros,
      refusal: CHAT_CREDITS_MESSAGE,
    })
  } catch (error) {
    if (error instanceof AppError && error.status === 402) await findActiveConversation(ctx, actor)
    throw error
  }
}

/** A reply already started from what the conversation's last reply here left (plan-cache.ts). */
type Guess = { plan: ReplyPlan; prepared: PreparedReply; cancel: () => void }

const guessReply = (ctx: AppContext, actor: ChatSessionActor, message: string, signal: AbortSignal) => {
  const plan = predictPlan(ctx, { conversationId: actor.conversationId, message })
  if (!plan) return null
  const own = new AbortController()
  const prepared = startPlan(plan, AbortSignal.any([signal, own.signal]))
  return { plan, prepared, cancel: () => own.abort('refused') } satisfies Guess
}

/**
 * The reply's plan from what its claim read. When the guess already under way would send the
 * model the very same request, it goes on (the model's time to its first token then covered the
 * claim); otherwise it is cancelled and the real plan starts now.
 */
const settleReply = async (
  ctx: AppContext,
  {
    context,
    message,
    guess,
    signal,
  }: { context: store.ReplyContext; message: string; guess: Guess | null; signal: AbortSignal },
): Promise<PreparedReply> => {
  const { conversation, agent, history } = context
  const parts = await readPlanParts(ctx, { conversation, agent })
  const plan = composePlan({ agent, turns: [...history, { role: 'user', content: message }], ...parts })
  // The fresh toolset either way: it holds the functions as they are now.
  if (guess && isSamePlan(guess.plan, plan)) return { ...guess.prepared, toolset: plan.toolset }
  guess?.cancel()
  return startPlan(plan, signal)
}

/** Records the reply and its usage, and keeps what the next reply can start from. */
const recordReply = async (
  ctx: AppContext,
  {
    conversation,
    prepared,
    outcome,
    messageId,
  }: {
    conversation: store.ConversationRow
    prepared: PreparedReply
    outcome: Awaited<ReturnType<typeof runReply>>
    /** The id its checkpoints already used. */
    messageId: string
  },
) => {
  const isStored = outcome.text !== '' || outcome.status !== 'complete'
  if (isStored || outcome.toolCalls.length > 0)
    await ctx.db.transaction().execute(async (tx) => {
      if (isStored)
        await store.insertMessage(tx, {
          id: messageId,
          conversationId: conversation.id,
          role: 'assistant',
          content: outcome.text,
          tokenCount: outcome.outputTokens,
          status: outcome.status,
          model: outcome.model,
          fallbackFrom: outcome.fallbackFrom,
        })
      await store.insertToolCalls(tx, { conversationId: conversation.id, calls: outcome.toolCalls })
    })
  const charged = await chargeReply(ctx, {
    organizationId: conversation.organizationId,
    conversationId: conversation.id,
    costMicros: outcome.costMicros,
  })
  await store.addReplyUsage(ctx.db, {
    id: conversation.id,
    inputTokens: outcome.inputTokens,
    outputTokens: outcome.outputTokens,
    costMicros: charged,
  })
  // A handoff changed the agent and its tools, and an ended chat has no next reply.
  if (outcome.endSession || outcome.agent.id !== prepared.agent.id) {
    forgetPlan(ctx, conversation.id)
    return
  }
  const reply: Turn[] = isStored ? [{ role: 'assistant', content: outcome.text }] : []
  rememberPlan(ctx, {
    conversationId: conversation.id,
    agent: prepared.agent,
    turns: [...prepared.turns, ...reply],
    parts: prepared,
  })
}

/**
 * Sends the user's message and streams the agent's reply as SSE. With an Idempotency-Key the
 * reply is resumable: a repeat of the same send follows (or replays) it instead of generating
 * another one, and a client that drops is given CHAT_RESUME_GRACE_MS to come back.
 */
export const sendMessage = async (
  ctx: AppContext,
  {
    actor,
    message,
    headers,
    res,
  }: { actor: ChatSessionActor; message: string; headers: SendChatMessageHeaders; res: Response },
) => {
  assertMessageLength(message)
  const key = headers['idempotency-key']
  const scope: ReplyScope | null = key ? { conversationId: actor.conversationId, idempotencyKey: key } : null
  // A repeat of a send follows the reply it already has: the model is never asked again.
  const owner = scope ? await reserveReply(ctx, { scope, message }) : null
  if (scope && owner) {
    await findActiveConversation(ctx, actor)
    await followReply(ctx, { scope, owner, afterId: headers['last-event-id'] ?? 0, res })
    return
  }
  const controller = new AbortController()
  // Started before anything is read; used only if the claim's plan turns out the same, and
  // cancelled at once when the hold or the claim is refused.
  const guess = guessReply(ctx, actor, message, controller.signal)
  let holdId: string | null = null
  let preparing: Promise<PreparedReply>
  let conversation: store.ConversationRow
  try {
    holdId = await holdReply(ctx, actor)
    const context = await claimReply(ctx, actor, message)
    conversation = context.conversation
    preparing = settleReply(ctx, { context, message, guess, signal: controller.signal })
    // Awaited once the stream is open: a reply that fails to prepare says so there.
    preparing.catch(() => undefined)
  } catch (error) {
    controller.abort('refused')
    if (holdId) await releaseHold(ctx, holdId)
    // Refused: what this instance remembered of the session is no longer worth a guess, and the
    // key is free again (after fixing the cause it may be reused).
    forgetPlan(ctx, actor.conversationId)
    if (scope)
      await replyLogOf(ctx)
        .drop(scope)
        .catch(() => undefined)
    throw error
  }

  const reply = trackReply(ctx, { conversationId: conversation.id, idempotencyKey: key ?? null, controller })
  const stream = openEventStream(res)
  if (actor.keyId) ctx.streams.register({ keyId: actor.keyId, stream })
  // A client that goes away (or a revoked key closing the stream) stops following the reply.
  stream.onClose(() => reply.leave())
  let lastId = 0
  const log = replyLogOf(ctx)
  const messageId = ulid()
  const checkpoints = startCheckpoints(ctx, { conversationId: conversation.id, messageId })
  const emit: Emit = (event, data) => {
    const id = ++lastId
    stream.send(event, data, id)
    if (scope) log.append(scope, { id, event, data })
    if (event === 'chunk') checkpoints.add((data as { delta: string }).delta)
  }

  try {
    const prepared = await preparing
    const outcome = await runReply({ ctx, conversation, prepared, emit, signal: controller.signal })
    await checkpoints.finish()
    await recordReply(ctx, { conversation, prepared, outcome, messageId })
    // Settled by the real cost just debited: freed before the client hears the reply is over.
    await releaseHold(ctx, holdId)
    if (outcome.error) emit('error', { error: outcome.error })
    else
      emit('stream_end', {
        usage: { input_tokens: outcome.inputTokens, output_tokens: outcome.outputTokens },
        end_session: outcome.endSession,
      })
  } catch (error) {
    ctx.logger.error({ err: error, conversationId: conversation.id }, 'chat reply could not be recorded')
    forgetPlan(ctx, conversation.id)
    emit('error', { error: 'The reply could not be completed; please try again' })
    await store.releaseReply(ctx.db, conversation.id).catch(() => undefined)
  } finally {
    await checkpoints.finish()
    reply.release()
    stream.close()
    // A reply that failed before its cost was recorded frees its hold here (a no-op otherwise).
    await releaseHold(ctx, holdId)
  }
}

/** Aborts the session's reply in progress, if any, on whichever instance streams it. */
export const stopReply = async (ctx: AppContext, actor: ChatSessionActor) => {
  const conversation = await findActiveConversation(ctx, actor)
  await ctx.signals.publish('chat.stop', { conversationId: conversation.id, reason: 'stopped' })
  return { stopped: true as const }
}
