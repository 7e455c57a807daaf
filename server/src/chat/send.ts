import type { SendChatMessageHeaders } from '@parley/shared'
import type { Response } from 'express'
import { ulid } from 'ulid'
import * as agentStore from '../agents/store.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { openEventStream } from '../http/sse.ts'
import type { ChatSessionActor } from '../http/types.ts'
import { trackReply } from './active-replies.ts'
import { assertCredits, chargeReply } from './billing.ts'
import { scheduleExpiry } from './end.ts'
import { estimateTokens } from './prompt.ts'
import { type Emit, runReply } from './reply.ts'
import { type ReplyScope, replyLogOf } from './reply-log.ts'
import { followReply, HEARTBEAT_MS, reserveReply } from './resume.ts'
import { assertMessageLength, findActiveConversation, sessionNotFound } from './sessions.ts'
import type { ConversationRow } from './store.ts'
import * as store from './store.ts'

/** A reply slot older than this belongs to an instance that died mid-reply. */
const STALE_REPLY_MS = 10 * 60 * 1000

/**
 * Everything that can refuse a new reply, before the stream opens (so refusals are plain JSON
 * errors with the spec's codes): credits, the agent, the one-reply-at-a-time slot. The slot is
 * taken together with storing the user's message: fewer round trips before the first chunk.
 */
const claimReplySlot = async (ctx: AppContext, conversation: ConversationRow, message: string) => {
  const [, agent] = await Promise.all([
    assertCredits(ctx, conversation.organizationId),
    agentStore.findAgent(ctx.db, {
      organizationId: conversation.organizationId,
      id: conversation.currentAgentId,
    }),
  ])
  if (!agent) throw sessionNotFound()
  const claimed = await store.claimReplyWithMessage(ctx.db, {
    id: conversation.id,
    staleBefore: new Date(Date.now() - STALE_REPLY_MS),
    message: { id: ulid(), content: message, tokenCount: estimateTokens(message) },
  })
  if (!claimed) throw AppError.conflict('A reply is already streaming in this session; wait for it to end')
  return agent
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
  const conversation = await findActiveConversation(ctx, actor)
  const key = headers['idempotency-key']
  const scope: ReplyScope | null = key ? { conversationId: conversation.id, idempotencyKey: key } : null
  if (scope && (await reserveReply(ctx, { scope, message })) === 'resume') {
    await followReply(ctx, { scope, afterId: headers['last-event-id'] ?? 0, res })
    return
  }

  let agent: Awaited<ReturnType<typeof claimReplySlot>>
  try {
    agent = await claimReplySlot(ctx, conversation, message)
  } catch (error) {
    // The key is free again: after fixing the cause (credits, a reply in progress) it may be reused.
    if (scope)
      await replyLogOf(ctx)
        .drop(scope)
        .catch(() => undefined)
    throw error
  }
  const reply = trackReply(ctx, { conversationId: conversation.id, idempotencyKey: key ?? null })
  const stream = openEventStream(res)
  if (actor.keyId) ctx.streams.register({ keyId: actor.keyId, stream })
  const heartbeat = setInterval(() => stream.comment('heartbeat'), HEARTBEAT_MS)
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
    const outcome = await runReply({ ctx, conversation, agent, emit, signal: reply.controller.signal })
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
    clearInterval(heartbeat)
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
