import type { CreateVoiceSession, VoiceSession } from '@parley/shared'
import { findSessionAgent } from '../agents/index.ts'
import { referHold, releaseHold, requireHold } from '../billing/index.ts'
import {
  assertCredits,
  authenticateChatSession,
  findActiveConversation,
  sessionNotFound,
} from '../chat/index.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import type { ApiKeyActor, StudioActor } from '../http/types.ts'
import { findKeyCreator } from '../keys/index.ts'
import type { LiveKit } from '../providers/livekit.ts'
import { agentRuntimeConfig, buildDispatchMetadata } from './dispatch-metadata.ts'
import { estimateCallMicros, voiceRateFor } from './pricing.ts'
import { deleteCallRoom } from './rooms.ts'
import { closeCall, openCall } from './service.ts'

const CALL_CREDITS_MESSAGE = 'Insufficient credits: add credits to start a voice session'
/** A call's hold stops counting after this long should its close never come (its server died). */
const CALL_HOLD_TTL_MS = 6 * 60 * 60 * 1000

let lastRoomTimestamp = 0
/**
 * The room name's timestamp (milliseconds): never the same twice in this process, so two sessions
 * of one key and agent opened in one millisecond get rooms of their own.
 */
const roomTimestamp = () => {
  lastRoomTimestamp = Math.max(Date.now(), lastRoomTimestamp + 1)
  return lastRoomTimestamp
}

/** A room nobody joins is closed by LiveKit after this long (and then its call by the webhook). */
const EMPTY_ROOM_TIMEOUT_SECONDS = 120

export const mediaServerError = (cause?: unknown) =>
  new AppError({
    status: 500,
    code: 'media_server_error',
    message: 'Failed to create the voice session: the media server is unavailable',
    cause,
  })

/** Voice off is a known state (said once at start), not a failure to trace on every click. */
const requireLiveKit = (ctx: AppContext): LiveKit => {
  if (!ctx.livekit)
    throw new AppError({
      status: 500,
      code: 'voice_off',
      message: 'Failed to create the voice session: voice is off on this server (LiveKit is not configured)',
    })
  return ctx.livekit
}

/** A key, or a member trying an agent in the studio (its Try it panel). */
type Creator = ApiKeyActor | StudioActor

/** The key's creator is the participant (spec: identity is the user id); in the studio, the member. */
const userIdOf = async (ctx: AppContext, actor: Creator) => {
  if (actor.kind === 'studio') return actor.userId
  if (actor.member) return actor.member.userId
  if (actor.keyId === null) throw AppError.unauthorized('An API key is required', 'invalid_api_key')
  const creator = await findKeyCreator(ctx.db, actor.keyId)
  // A key whose creator was removed still works; its key id stands in as the identity.
  return creator?.userId ?? `key-${actor.keyId}`
}

const findVoiceAgent = async (ctx: AppContext, actor: Creator, agentId: string) => {
  const agent = await findSessionAgent(ctx, { organizationId: actor.organizationId, agentId })
  const architecture = agent.agentArchitecture
  if (architecture === 'text')
    throw AppError.badRequest('Agent must be pipeline or realtime for voice sessions', 'not_voice_agent')
  // Only the public path refuses an inactive agent: the studio and secret keys may try it (§7).
  if (!agent.active && actor.kind === 'apiKey' && actor.keyType === 'widget') throw AppError.agentInactive()
  return { agent, architecture }
}

/**
 * The chat conversation a call continues: the caller proves it holds it with that session's token
 * (a token for another conversation is 403 conversation_mismatch, a forged or expired one 401), and
 * it must be live and of the key's organization (404 session_not_found otherwise, as for chat).
 */
const conversationToContinue = async (ctx: AppContext, actor: Creator, input: CreateVoiceSession) => {
  if (input.conversation_id === undefined) return null
  const chatActor = await authenticateChatSession(ctx, {
    token: input.session_token,
    conversationId: input.conversation_id,
  })
  const conversation = await findActiveConversation(ctx, chatActor)
  if (conversation.organizationId !== actor.organizationId) throw sessionNotFound()
  return conversation.id
}

/**
 * The spec's steps in order: key → organization and user; agent in the organization and of a
 * voice architecture; credits; room created and the agent dispatched at once (the call record
 * opens between the two, so the worker gets its id); participant token.
 */
export const createVoiceSession = async (
  ctx: AppContext,
  { actor, input }: { actor: Creator; input: CreateVoiceSession },
): Promise<VoiceSession> => {
  const userId = await userIdOf(ctx, actor)
  const { agent, architecture } = await findVoiceAgent(ctx, actor, input.agent_id)
  const conversationId = await conversationToContinue(ctx, actor, input)
  await assertCredits(ctx, actor.organizationId, CALL_CREDITS_MESSAGE)
  const livekit = requireLiveKit(ctx)

  const roomName = `agent_${agent.id}_${userId}_${roomTimestamp()}`
  // The call's expected cost at its agent's price is reserved before any room exists; its close settles the hold.
  const microsPerMinute = await voiceRateFor(ctx, { agent, organizationId: actor.organizationId })
  const holdId = await requireHold(ctx, {
    organizationId: actor.organizationId,
    amountMicros: estimateCallMicros(microsPerMinute),
    kind: 'call',
    ttlMs: CALL_HOLD_TTL_MS,
    minBalanceMicros: ctx.config.chatMinBalanceMicros,
    refusal: CALL_CREDITS_MESSAGE,
  })
  try {
    await livekit.createRoom({ name: roomName, emptyTimeoutSeconds: EMPTY_ROOM_TIMEOUT_SECONDS })
  } catch (error) {
    await releaseHold(ctx, holdId)
    throw mediaServerError(error)
  }
  const call = await openCall(ctx, {
    organizationId: actor.organizationId,
    agentId: agent.id,
    userId,
    keyId: actor.kind === 'apiKey' ? actor.keyId : null,
    roomName,
    architecture,
    microsPerMinute,
    direction: 'web',
    conversationId,
  })
  await referHold(ctx.db, { id: holdId, reference: call.id })
  try {
    const { metadata } = buildDispatchMetadata({
      runtimeConfig: await agentRuntimeConfig(ctx, agent, actor.organizationId),
      callId: call.id,
      organizationId: actor.organizationId,
      roomName,
      party: { direction: 'web', userId },
    })
    await livekit.dispatchAgent({ roomName, metadata })
    const token = await livekit.createParticipantToken({ identity: userId, roomName })
    return { room_name: roomName, token, livekit_url: livekit.clientUrl, agent_name: agent.name }
  } catch (error) {
    // Nobody can join: the call never ran (not billed) and the room goes.
    await closeCall(ctx, { roomName, reason: 'dispatch_failed', status: 'failed' })
    await deleteCallRoom(ctx, { roomName, why: 'a failed voice session' })
    throw mediaServerError(error)
  }
}
