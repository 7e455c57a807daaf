import { createHash } from 'node:crypto'
import {
  CHAT_MESSAGE_MAX_LENGTH,
  type ChatHistory,
  type ChatHistoryQuery,
  type ChatSession,
  type CreateChatSession,
} from '@parley/shared'
import { agentAsVersion, findSessionAgent } from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { newUlid } from '../crypto/ids.ts'
import { AppError } from '../http/app-error.ts'
import type { ApiKeyActor, ChatSessionActor, StudioActor } from '../http/types.ts'
import { aliveAfter } from '../instances/liveness.ts'
import { isUserHashValid } from '../orgs/index.ts'
import { assertCredits } from './billing.ts'
import { endConversation, scheduleExpiry } from './end.ts'
import { readPlanParts } from './plan.ts'
import { rememberPlan } from './plan-cache.ts'
import * as store from './store.ts'
import { invalidChatToken, signChatToken } from './token.ts'

export const sessionNotFound = () => AppError.notFound('session', 'session_not_found')

/**
 * The conversation of a session call, if its key is still active (401 otherwise) and it is still
 * active itself. One idle past the limit is expired here and now (its end effects run once,
 * whoever gets there first: this call or the job).
 */
export const findActiveConversation = async (ctx: AppContext, actor: ChatSessionActor) => {
  const { conversation, keyStatus } = await store.findSessionConversation(ctx.db, {
    id: actor.conversationId,
    keyId: actor.keyId,
  })
  if (actor.keyId && keyStatus !== 'active') throw invalidChatToken()
  if (!conversation || conversation.organizationId !== actor.organizationId) throw sessionNotFound()
  if (conversation.status !== 'active') throw sessionNotFound()
  const idleBefore = new Date(Date.now() - ctx.config.chatIdleTimeoutMs)
  if (conversation.lastActivityAt < idleBefore) {
    await endConversation(ctx, { conversationId: conversation.id, status: 'expired', idleBefore })
    throw sessionNotFound()
  }
  return conversation
}

/**
 * Whose memory a new session recalls. A user_identifier is trusted from a secret key or a studio
 * session (the owner's own code or people), and from a widget key only with a user_hash that is
 * its HMAC under the organization's identity secret: anyone can put any identifier in a browser.
 * A wrong user_hash is refused (403 invalid_user_hash), so a misconfigured site shows its error
 * instead of silently losing memory. An unproven identifier is kept as given, for the owner to
 * see, but its memory is this browser's own (visitor_id, hashed), never the identifier's.
 */
const identityOf = async (
  ctx: AppContext,
  { actor, input }: { actor: ApiKeyActor | StudioActor; input: CreateChatSession },
): Promise<{ memoryIdentity: string | null; userVerified: boolean }> => {
  const identifier = input.user_identifier
  if (!identifier) return { memoryIdentity: null, userVerified: false }
  const isPublic = actor.kind === 'apiKey' && actor.keyType === 'widget'
  if (!isPublic) return { memoryIdentity: `user:${identifier}`, userVerified: true }
  if (input.user_hash) {
    const isValid = await isUserHashValid(ctx, {
      organizationId: actor.organizationId,
      userIdentifier: identifier,
      userHash: input.user_hash,
    })
    if (!isValid)
      throw AppError.forbidden(
        "user_hash is not the HMAC-SHA256 of user_identifier under this organization's identity secret",
        'invalid_user_hash',
      )
    return { memoryIdentity: `user:${identifier}`, userVerified: true }
  }
  const visitor = input.visitor_id
    ? `visitor:${createHash('sha256').update(input.visitor_id).digest('base64url')}`
    : null
  return { memoryIdentity: visitor, userVerified: false }
}

export const createSession = async (
  ctx: AppContext,
  { actor, input }: { actor: ApiKeyActor | StudioActor; input: CreateChatSession },
): Promise<ChatSession> => {
  const isDraft = input.agent_version === 'draft'
  // The draft is the studio's to try: a key (widget or secret) always gets the published version.
  if (isDraft && actor.kind !== 'studio')
    throw AppError.forbidden('agent_version "draft" is for studio sessions only')
  const published = await findSessionAgent(ctx, {
    organizationId: actor.organizationId,
    agentId: input.agent_id,
  })
  // Another organization's (commercial) agent: its draft is its owner's unpublished work.
  if (isDraft && published.organizationId !== actor.organizationId)
    throw AppError.forbidden("Only the agent's own organization can talk to its draft")
  const agent = isDraft ? await agentAsVersion(ctx, { agent: published, version: 'draft' }) : published
  if (agent.agentArchitecture !== 'text')
    throw AppError.badRequest('The chat API works only with text agents', 'not_text_agent')
  if (!agent.active && actor.kind === 'apiKey' && actor.keyType === 'widget') throw AppError.agentInactive()
  await assertCredits(ctx, actor.organizationId)

  const identity = await identityOf(ctx, { actor, input })
  const conversationId = newUlid()
  const keyId = actor.kind === 'apiKey' ? actor.keyId : null
  const greeting = agent.greetingType === 'agentFirst' ? (agent.greetingMessage ?? null) : null
  await ctx.db.transaction().execute(async (tx) => {
    await store.insertConversation(tx, {
      id: conversationId,
      organizationId: actor.organizationId,
      agentId: agent.id,
      agentName: agent.name,
      apiKeyId: keyId,
      userIdentifier: input.user_identifier ?? null,
      ...identity,
      metadata: input.metadata ?? {},
      agentDraft: isDraft,
    })
    // The greeting is part of the conversation the model sees and the history shows.
    if (greeting)
      await store.insertMessage(tx, {
        id: newUlid(),
        conversationId,
        role: 'assistant',
        content: greeting,
        tokenCount: null,
        status: 'complete',
      })
  })
  await scheduleExpiry(ctx, { conversationId })
  // The first reply can then start before its claim is read (plan-cache.ts). A session with an
  // identity recalls its memory with its first reply instead of here.
  if (!identity.memoryIdentity && ctx.config.chatPlanCacheEntries > 0)
    await readPlanParts(ctx, {
      conversation: { organizationId: actor.organizationId, memoryIdentity: null },
      agent,
    })
      .then((parts) =>
        rememberPlan(ctx, {
          conversationId,
          agent,
          turns: greeting ? [{ role: 'assistant', content: greeting }] : [],
          parts,
        }),
      )
      .catch((error: unknown) =>
        ctx.logger.warn({ err: error, conversationId }, 'could not plan the first reply'),
      )
  return {
    conversation_id: conversationId,
    session_token: signChatToken(ctx.config.jwtSecret, {
      conversationId,
      organizationId: actor.organizationId,
      agentId: agent.id,
      keyId,
    }),
    agent_name: agent.name,
    greeting,
    agent_model: agent.model ?? 'offline',
    voice_available: ctx.livekit !== null,
  }
}

export const assertMessageLength = (message: string) => {
  if (message.length > CHAT_MESSAGE_MAX_LENGTH)
    throw AppError.badRequest(
      `Message is longer than ${CHAT_MESSAGE_MAX_LENGTH.toLocaleString('en')} characters`,
      'message_too_long',
    )
}

export const readHistory = async (
  ctx: AppContext,
  { actor, query }: { actor: ChatSessionActor; query: ChatHistoryQuery },
): Promise<ChatHistory> => {
  const conversation = await findActiveConversation(ctx, actor)
  const [rows, count] = await Promise.all([
    store.listMessages(ctx.db, { conversationId: conversation.id, ...query, aliveAfter: aliveAfter(ctx) }),
    store.countMessages(ctx.db, conversation.id, aliveAfter(ctx)),
  ])
  return {
    messages: rows.map((row) => ({
      role: row.role,
      content: row.content,
      timestamp: row.createdAt.toISOString(),
      token_count: row.tokenCount,
      channel: row.channel,
      ...(row.sources ? { sources: row.sources } : {}),
    })),
    count,
  }
}
