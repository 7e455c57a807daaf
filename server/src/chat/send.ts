import type { SendChatMessageHeaders } from '@parley/shared'
import type { Response } from 'express'
import { ulid } from 'ulid'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { openEventStream } from '../http/sse.ts'
import type { ChatSessionActor } from '../http/types.ts'
import { trackReply } from './active-replies.ts'
import { assertBalance, assertCredits, chargeReply } from './billing.ts'
import { scheduleExpiry } from './end.ts'
import { estimateTokens, HISTORY_ROWS } from './prompt.ts'
import { type Emit, type PreparedReply, prepareReply, runReply } from './reply.ts'
import { type ReplyScope, replyLogOf } from './reply-log.ts'
import { followReply, reserveReply } from './resume.ts'
import { assertActive, assertMessageLength, findActiveConversation, sessionNotFound } from './sessions.ts'
import * as store from './store.ts'

/** A reply slot older than this belongs to an instance that died mid-reply. */
const STALE_REPLY_MS = 10 * 60 * 1000

/**
 * The session's conversation (if active), balance, agent and latest messages, in one round trip.
 * When that statement fails, the reads one by one say which part did: a billing store that cannot
 * answer is the spec's 503, as it always was.
 */
const readReplyContext = async (ctx: AppContext, actor: ChatSessionActor) => {
  let context: store.ReplyContext | undefined
  try {
    context = await store.findReplyContext(ctx.db, {
      id: actor.conversationId,
      historyLimit: HISTORY_ROWS - 1,
    })
  } catch (error) {
    const conversation = await findActiveConversation(ctx, actor)
    await assertCredits(ctx, conversation.organizationId)
    throw error
  }
  const conversation = await assertActive(ctx, actor, context?.conversation)
  return { ...(context as store.ReplyContext), conversation }
}

/**
 * Everything that can refuse a new reply, before the stream opens (so refusals are plain JSON
 * errors with the spec's codes): credits, the agent, the one-reply-at-a-time slot. While the slot
 * is claimed (together with storing the user's message), the reply is prepared and its upstream
 * request started: the write no longer sits before the first chunk. A refusal cancels that request.
 */
const startReply = async (
  ctx: AppContext,
  { context, message, signal }: { context: store.ReplyContext; message: string; signal: AbortSignal },
) => {
  const { conversation, agent } = context
  assertBalance(ctx, context.balanceMicros)
  if (!agent) throw sessionNotFound()
  const preparing = prepareReply({
    ctx,
    conversation,
    agent,
    turns: [...context.history, { role: 'user', content: message }],
    signal,
  })
  // Awaited below; a refused claim leaves it unread.
  preparing.catch(() => undefined)
  const claimed = await store.claimReplyWithMessage(ctx.db, {
    id: conversation.id,
    staleBefore: new Date(Date.now() - STALE_REPLY_MS),
    // The messages the prompt was built from are still the latest: nothing happened in between.
    lastActivityAt: conversation.lastActivityAt,
    message: { id: ulid(), content: message, tokenCount: estimateTokens(message) },
  })
  if (!claimed) throw AppError.conflict('A reply is already streaming in this session; wait for it to end')
  // Wrapped: a reply that fails to prepare still opens its stream and says so there, as before.
  return { preparing }
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
  const context = await readReplyContext(ctx, actor)
  const { conversation } = context
  const key = headers['idempotency-key']
  const scope: ReplyScope | null = key ? { conversationId: conversation.id, idempotencyKey: key } : null
  if (scope && (await reserveReply(ctx, { scope, message })) === 'resume') {
    await followReply(ctx, { scope, afterId: headers['last-event-id'] ?? 0, res })
    return
  }

  const controller = new AbortController()
  let started: { preparing: Promise<PreparedReply> }
  try {
    started = await startReply(ctx, { context, message, signal: controller.signal })
  } catch (error) {
    controller.abort('refused')
    // The key is free again: after fixing the cause (credits, a reply in progress) it may be reused.
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
  const emit: Emit = (event, data) => {
    const id = ++lastId
    stream.send(event, data, id)
    if (scope) log.append(scope, { id, event, data })
  }

  try {
    const prepared = await started.preparing
    const outcome = await runReply({ ctx, conversation, prepared, emit, signal: controller.signal })
    if (outcome.text !== '' || outcome.status !== 'complete')
      await store.insertMessage(ctx.db, {
        id: ulid(),
        conversationId: conversation.id,
        role: 'assistant',
        content: outcome.text,
        tokenCount: outcome.outputTokens,
        status: outcome.status,
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
    await scheduleExpiry(ctx, conversation.id)
    if (outcome.error) emit('error', { error: outcome.error })
    else
      emit('stream_end', {
        usage: { input_tokens: outcome.inputTokens, output_tokens: outcome.outputTokens },
        end_session: outcome.endSession,
      })
  } catch (error) {
    ctx.logger.error({ err: error, conversationId: conversation.id }, 'chat reply could not be recorded')
    emit('error', { error: 'The reply could not be completed; please try again' })
    await store.releaseReply(ctx.db, conversation.id).catch(() => undefined)
  } finally {
    reply.release()
    stream.close()
  }
}

/** Aborts the session's reply in progress, if any, on whichever instance streams it. */
export const stopReply = async (ctx: AppContext, actor: ChatSessionActor) => {
  const conversation = await findActiveConversation(ctx, actor)
  await ctx.signals.publish('chat.stop', { conversationId: conversation.id, reason: 'stopped' })
  return { stopped: true as const }
}
