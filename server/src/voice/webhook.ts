import {
  closeCall,
  deleteCallRoom,
  recordAgentJoined,
  recordAgentLeft,
  recordPersonJoined,
} from '../calls/index.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import type { WebhookEvent } from '../providers/livekit.ts'

/** ParticipantInfo.Kind in LiveKit's protocol: a browser user, a phone callee, the agent worker. */
const PARTICIPANT_KIND = { STANDARD: 0, SIP: 3, AGENT: 4 } as const

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
 * Who came and went decides the bill: the call bills only while the person (a browser user or a
 * SIP callee) and the agent are both in the room (calls/presence.ts). room_finished ends the
 * room's call; the person leaving ends it too, and then removes the room so the worker stops;
 * the agent leaving pauses the clock until an agent joins again. closeCall bills once however
 * many of these arrive, in whatever order. Other participants (egress, ingress) change nothing.
 */
export const handleLiveKitEvent = async (ctx: AppContext, event: WebhookEvent) => {
  const roomName = event.room?.name
  if (!roomName) return
  if (event.event === 'room_finished') {
    await closeCall(ctx, { roomName, reason: 'room_finished' })
    return
  }
  const participant = event.participant
  if (!participant) return
  if (participant.kind === PARTICIPANT_KIND.AGENT) {
    const agent = { roomName, participantSid: participant.sid }
    if (event.event === 'participant_joined') await recordAgentJoined(ctx, agent)
    else if (event.event === 'participant_left') await recordAgentLeft(ctx, agent)
    return
  }
  if (participant.kind !== PARTICIPANT_KIND.STANDARD && participant.kind !== PARTICIPANT_KIND.SIP) return
  if (event.event === 'participant_joined') {
    await recordPersonJoined(ctx, roomName)
    return
  }
  if (event.event !== 'participant_left') return
  if (await closeCall(ctx, { roomName, reason: 'participant_left' }))
    await deleteCallRoom(ctx, { roomName, why: 'an ended call' })
}
