import type { SendChatMessageHeaders } from '@parley/shared'
import type { Response } from 'express'
import pLimit, { type LimitFunction } from 'p-limit'
import * as agentStore from '../agents/index.ts'
import type { AuditBy } from '../audit/index.ts'
import { coverHold, type ReplyRound, releaseHold, requireHold, settleHold } from '../billing/index.ts'
import type { AppContext } from '../context.ts'
import { newUlid } from '../crypto/ids.ts'
import { AppError } from '../http/app-error.ts'
import { openEventStream } from '../http/sse.ts'
import type { StreamSlot } from '../http/streams.ts'
import type { ChatSessionActor } from '../http/types.ts'
import { aliveAfter } from '../instances/liveness.ts'
import { retrieveForReply } from '../knowledge/index.ts'
import { trackReply } from './active-replies.ts'
import { assertCredits, CHAT_CREDITS_MESSAGE, replyCharge } from './billing.ts'
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
import { type CoverRound, type Emit, type NextRound, type ReplyOutcome, runReply } from './reply.ts'
import { countPromptTokens, roundWorstCaseMicros } from './reply-cost.ts'
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
const claimReply = async (ctx: AppContext, actor: ChatSessionActor, message: string, messageId: string) => {
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
      message: { id: messageId, content: message, tokenCount: estimateTokens(message) },
    })
  } catch (error) {
    await assertSessionMayReply(ctx, actor)
    throw error
  }
  return context ?? explainRefusedClaim(ctx, actor)
}

/** A model round's worst case as its hold records it. */
const roundOf = (
  ctx: AppContext,
  { messageId, round }: { messageId: string; round: NextRound },
): { amountMicros: number; round: ReplyRound } => {
  const promptTokens = countPromptTokens(ctx, round)
  return {
    amountMicros: round.usedMicros + roundWorstCaseMicros(ctx, { model: round.model, promptTokens }),
    round: {
      instanceId: ctx.instanceId,
      messageId,
      model: round.model,
      promptTokens,
      usedMicros: round.usedMicros,
      textOffset: round.textOffset,
    },
  }
}

/** The first round of a plan as a round to cover. */
const firstRoundOf = (plan: ReplyPlan): NextRound => ({
  model: plan.request.model,
  messages: plan.request.messages,
  tools: plan.request.tools,
  usedMicros: 0,
  textOffset: 0,
})

/**
 * Reserves the reply's expected worst case before any model is asked (beside the claim): the
 * predicted plan's first round (its prompt counted, its completion at the cap, priced) when this
 * instance can predict it, so that request may start at once; otherwise a placeholder that the
 * claim's plan grows before its model is asked (coverRound). Concurrent replies can never together
 * spend what the balance does not cover. A refused hold first lets the session say what else is
 * wrong with it (401, 404), then 402.
 */
const holdReply = async (
  ctx: AppContext,
  {
    actor,
    messageId,
    predicted,
  }: { actor: ChatSessionActor; messageId: string; predicted: ReplyPlan | null },
) => {
  const first = predicted
    ? roundOf(ctx, { messageId, round: firstRoundOf(predicted) })
    : {
        amountMicros: 1,
        round: {
          instanceId: ctx.instanceId,
          messageId,
          model: 'offline',
          promptTokens: 0,
          usedMicros: 0,
          textOffset: 0,
        },
      }
  try {
    return await requireHold(ctx, {
      organizationId: actor.organizationId,
      amountMicros: first.amountMicros,
      kind: 'reply',
      reference: actor.conversationId,
      ttlMs: STALE_REPLY_MS,
      minBalanceMicros: ctx.config.chatMinBalanceMicros,
      refusal: CHAT_CREDITS_MESSAGE,
      round: first.round,
    })
  } catch (error) {
    if (error instanceof AppError && error.status === 402) await findActiveConversation(ctx, actor)
    throw error
  }
}

/** Grows the reply's hold to cover its next round (see coverHold). */
const coverRoundOf =
  (
    ctx: AppContext,
    { holdId, organizationId, messageId }: { holdId: string; organizationId: string; messageId: string },
  ): CoverRound =>
  (next) =>
    coverHold(ctx, {
      id: holdId,
      organizationId,
      ttlMs: STALE_REPLY_MS,
      minBalanceMicros: ctx.config.chatMinBalanceMicros,
      ...roundOf(ctx, { messageId, round: next }),
    })

/** A reply already started from what the conversation's last reply here left (plan-cache.ts). */
type Guess = { plan: ReplyPlan; prepared: PreparedReply; cancel: () => void }

const startGuess = (plan: ReplyPlan | null, signal: AbortSignal) => {
  if (!plan) return null
  const own = new AbortController()
  const prepared = startPlan(plan, AbortSignal.any([signal, own.signal]))
  return { plan, prepared, cancel: () => own.abort('refused') } satisfies Guess
}

/** A reply refused once its claim was made: its first round's worst case is not covered. */
class FirstRoundNotCovered extends Error {}

/**
 * The reply's plan from what its claim read. When the guess already under way would send the
 * model the very same request, it goes on (the model's time to its first token then covered the
 * claim, and its hold already covers it); otherwise it is cancelled, the hold grows to cover the
 * real plan's first round, and that starts now.
 */
const settleReply = async (
  ctx: AppContext,
  {
    context,
    message,
    guess,
    signal,
    coverRound,
  }: {
    context: store.ReplyContext
    message: string
    guess: Guess | null
    signal: AbortSignal
    coverRound: CoverRound
  },
): Promise<PreparedReply> => {
  const { conversation, history } = context
  // The studio's Try it on the draft: its own agent answers as the draft has it now (an agent it
  // was handed to answers as published).
  const agent =
    conversation.agentDraft && context.agent.id === conversation.agentId
      ? await agentStore.agentAsVersion(ctx, { agent: context.agent, version: 'draft' })
      : context.agent
  const [parts, knowledge] = await Promise.all([
    readPlanParts(ctx, { conversation, agent }),
    retrieveForReply(ctx, {
      organizationId: agent.organizationId,
      sourceIds: agent.knowledgeSourceIds,
      message,
    }),
  ])
  const plan = composePlan({
    agent,
    turns: [...history, { role: 'user', content: message }],
    maxTokens: ctx.config.chatMaxReplyTokens,
    knowledge,
    ...parts,
  })
  // The fresh toolset either way: it holds the functions as they are now.
  if (guess && isSamePlan(guess.plan, plan)) return { ...guess.prepared, toolset: plan.toolset }
  guess?.cancel()
  if (!(await coverRound(firstRoundOf(plan)))) throw new FirstRoundNotCovered()
  return startPlan(plan, signal)
}

/**
 * How many replies of this instance write their record (or settle a failed one) at once. A mass
 * disconnect ends thousands of replies in the same moment: unbounded, each would wait for one of
 * the pool's 10 connections (db/index.ts) and past its 10 s connection timeout fail to record,
 * and sessions, streams and health checks would find no connection either. Bounded, the records
 * queue here without a timeout and the rest of the pool stays free for everything else.
 */
const RECORDS_AT_ONCE = 4

const recorders = new WeakMap<AppContext, LimitFunction>()

/** Runs `write` when fewer than RECORDS_AT_ONCE replies of this instance are recording. */
const whenRecording = <T>(ctx: AppContext, write: () => Promise<T>): Promise<T> => {
  let limit = recorders.get(ctx)
  if (!limit) {
    limit = pLimit(RECORDS_AT_ONCE)
    recorders.set(ctx, limit)
  }
  return limit(write)
}

/** Records the reply and its usage, and keeps what the next reply can start from. */
const recordReply = async (
  ctx: AppContext,
  {
    conversation,
    prepared,
    outcome,
    messageId,
    holdId,
  }: {
    conversation: store.ConversationRow
    prepared: PreparedReply
    outcome: ReplyOutcome
    /** The id its checkpoints already used. */
    messageId: string
    holdId: string
  },
) => {
  const isStored = outcome.text !== '' || outcome.status !== 'complete'
  // The message, its tools, the charge of every round (settling the hold) and the session's
  // totals: one transaction, so a crash leaves either all of it or the hold for another to settle.
  await whenRecording(ctx, () =>
    ctx.db.transaction().execute(async (tx) => {
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
          sources: prepared.knowledge?.sources ?? null,
        })
      await store.insertToolCalls(tx, { conversationId: conversation.id, calls: outcome.toolCalls })
      const charged = await settleHold(ctx, tx, {
        id: holdId,
        charge: replyCharge({
          organizationId: conversation.organizationId,
          conversationId: conversation.id,
          costMicros: outcome.costMicros,
        }),
      })
      // Null: another instance took this one for dead and settled the hold from the checkpoint.
      await store.addReplyUsage(tx, {
        id: conversation.id,
        inputTokens: charged === null ? 0 : outcome.inputTokens,
        outputTokens: charged === null ? 0 : outcome.outputTokens,
        costMicros: charged ?? 0,
      })
    }),
  )
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
    by,
  }: {
    actor: ChatSessionActor
    message: string
    headers: SendChatMessageHeaders
    res: Response
    by: AuditBy
  },
) => {
  assertMessageLength(message)
  const key = headers['idempotency-key']
  const scope: ReplyScope | null = key ? { conversationId: actor.conversationId, idempotencyKey: key } : null
  const streamOwner = { organizationId: actor.organizationId, keyId: actor.keyId }
  // A repeat of a send follows the reply it already has: the model is never asked again.
  const owner = scope ? await reserveReply(ctx, { scope, message }) : null
  if (scope && owner) {
    await findActiveConversation(ctx, actor)
    const slot = await ctx.streams.admit(streamOwner)
    await followReply(ctx, { scope, owner, afterId: headers['last-event-id'] ?? 0, res, slot })
    return
  }
  const controller = new AbortController()
  const messageId = newUlid()
  const userMessageId = newUlid()
  let slot: StreamSlot | null = null
  let holdId: string | null = null
  let context: store.ReplyContext | null = null
  /** The claim's outcome, settled either way: what a refusal must undo. */
  let claimed: Promise<store.ReplyContext | null> = Promise.resolve(null)
  let preparing: Promise<PreparedReply>
  let coverRound: CoverRound
  try {
    // Too many open streams, or no credits for the worst case: refused before any model call.
    slot = await ctx.streams.admit(streamOwner)
    const predicted = predictPlan(ctx, { conversationId: actor.conversationId, message })
    // The hold and the claim go to the database side by side, each on its own connection: the
    // stream opens after the slower of the two, not after both in turn. Nothing reaches a model
    // before the hold is placed, and a refused hold undoes a claim that succeeded (below).
    const holding = holdReply(ctx, { actor, messageId, predicted })
    const claim = claimReply(ctx, actor, message, userMessageId)
    let isClaimRefused = false
    claimed = claim.catch(() => {
      isClaimRefused = true
      return null
    })
    holdId = await holding
    coverRound = coverRoundOf(ctx, { holdId, organizationId: actor.organizationId, messageId })
    // Started once its worst case is held, unless the claim was refused by then; used only if the
    // claim's plan turns out the same, and cancelled at once when the claim is refused.
    const guess = isClaimRefused ? null : startGuess(predicted, controller.signal)
    context = await claim
    preparing = settleReply(ctx, { context, message, guess, signal: controller.signal, coverRound })
    // A first round the credits do not cover is a 402 before the stream opens, the claim undone.
    // Any other failure to prepare is said on the stream, as the reply's error.
    await preparing.catch((error: unknown) => {
      if (error instanceof FirstRoundNotCovered) throw AppError.paymentRequired(CHAT_CREDITS_MESSAGE)
    })
  } catch (error) {
    controller.abort('refused')
    slot?.release()
    // A refused hold: the claim beside it may still be on its way, and is undone when it succeeded.
    context ??= await claimed
    if (context)
      await store
        .unclaimReply(ctx.db, { id: context.conversation.id, messageId: userMessageId })
        .catch((undo: unknown) => ctx.logger.warn({ err: undo }, 'a refused reply could not be undone'))
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
  const { conversation } = context

  const reply = trackReply(ctx, { conversationId: conversation.id, idempotencyKey: key ?? null, controller })
  const stream = openEventStream(res)
  slot.attach(stream)
  // A client that goes away (or a revoked key closing the stream) stops following the reply.
  stream.onClose(() => reply.leave())
  let lastId = 0
  const log = replyLogOf(ctx)
  const checkpoints = startCheckpoints(ctx, { conversationId: conversation.id, messageId })
  const emit: Emit = (event, data) => {
    const id = ++lastId
    stream.send(event, data, id)
    if (scope) log.append(scope, { id, event, data })
    if (event === 'chunk') checkpoints.add((data as { delta: string }).delta)
  }

  let outcome: ReplyOutcome | null = null
  let isSettled = false
  try {
    const prepared = await preparing
    outcome = await runReply({
      ctx,
      conversation,
      prepared,
      emit,
      signal: controller.signal,
      coverRound,
      by,
    })
    await checkpoints.finish()
    await recordReply(ctx, { conversation, prepared, outcome, messageId, holdId })
    isSettled = true
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
    await whenRecording(ctx, () => store.releaseReply(ctx.db, conversation.id)).catch(() => undefined)
  } finally {
    await checkpoints.finish()
    reply.release()
    stream.close()
    if (!isSettled) await settleFailedReply(ctx, { conversation, holdId, outcome })
  }
}

/**
 * A reply whose record failed still pays for what its model did: its cost settles the hold on its
 * own. When even that fails the hold stays (logged with the amount) rather than being dropped; a
 * reply that never reached its model frees its hold.
 */
const settleFailedReply = async (
  ctx: AppContext,
  {
    conversation,
    holdId,
    outcome,
  }: { conversation: store.ConversationRow; holdId: string; outcome: ReplyOutcome | null },
) => {
  if (!outcome) {
    await whenRecording(ctx, () => releaseHold(ctx, holdId))
    return
  }
  const costMicros = outcome.costMicros
  await whenRecording(ctx, () =>
    ctx.db.transaction().execute((tx) =>
      settleHold(ctx, tx, {
        id: holdId,
        charge: replyCharge({
          organizationId: conversation.organizationId,
          conversationId: conversation.id,
          costMicros,
        }),
      }),
    ),
  ).catch((error: unknown) =>
    ctx.logger.error(
      { err: error, conversationId: conversation.id, holdId, costMicros },
      'a reply could not be charged; its hold is kept',
    ),
  )
}

/** Aborts the session's reply in progress, if any, on whichever instance streams it. */
export const stopReply = async (ctx: AppContext, actor: ChatSessionActor) => {
  const conversation = await findActiveConversation(ctx, actor)
  await ctx.signals.publish('chat.stop', { conversationId: conversation.id, reason: 'stopped' })
  return { stopped: true as const }
}
