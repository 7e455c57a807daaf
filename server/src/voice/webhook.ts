import { closeCall, markCallConnected } from '../calls/service.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import type { WebhookEvent } from '../providers/livekit.ts'

// ParticipantInfo_Kind.AGENT in LiveKit's protocol: the worker leaving does not end the call.
const AGENT_KIND = 4

/** Verifies LiveKit's signature (JWT carrying the body's SHA-256) or answers 401. */
export const receiveLiveKitWebhook = async (
  ctx: AppContext,
  { rawBody, authorization }: { rawBody: string; authorization: string | undefined },
) => {
  if (!ctx.livekit) throw AppError.unavailable('LiveKit is not configured')
  try {
    return await ctx.livekit.receiveWebhook(rawBody, authorization)
  } catch (error) {
    ctx.logger.warn({ err: error }, 'refused a LiveKit webhook')
    throw AppError.unauthorized('Invalid LiveKit webhook signature', 'invalid_signature')
  }
}

/**
 * participant_joined of the person (not the agent) starts billing; room_finished ends the room's
 * call; participant_left ends it when the person (browser user or SIP callee) left, and then
 * removes the room so the worker stops too. closeCall bills once however many of these arrive,
 * in whatever order.
 */
export const handleLiveKitEvent = async (ctx: AppContext, event: WebhookEvent) => {
  const roomName = event.room?.name
  if (!roomName) return
  if (event.event === 'room_finished') {
    await closeCall(ctx, { roomName, reason: 'room_finished' })
    return
  }
  if (!event.participant || event.participant.kind === AGENT_KIND) return
  if (event.event === 'participant_joined') {
    await markCallConnected(ctx, roomName)
    return
  }
  if (event.event !== 'participant_left') return
  const closed = await closeCall(ctx, { roomName, reason: 'participant_left' })
  if (closed)
    await ctx.livekit?.deleteRoom(roomName).catch((error: unknown) => {
      ctx.logger.warn({ err: error, roomName }, 'could not delete the room of an ended call')
    })
}
