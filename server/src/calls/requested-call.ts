import { randomUUID } from 'node:crypto'
import type { CreateCall } from '@parley/shared'
import { findAgent } from '../agents/index.ts'
import { getBalanceMicros, heldMicros, placeHold } from '../billing/index.ts'
import type { AppContext } from '../context.ts'
import { doNotCallRefusal, isListed } from '../do-not-call/index.ts'
import { AppError } from '../http/app-error.ts'
import { checkE164, findPhoneNumber } from '../phone-numbers/index.ts'
import { closeUnansweredCall, dialCall } from './dialled-call.ts'
import { agentRuntimeConfig, buildDispatchMetadata } from './dispatch-metadata.ts'
import { recordCallEvent, recordCallProgress } from './events.ts'
import { recordPersonJoined } from './presence.ts'
import { estimateCallMicros, voiceRateFor } from './pricing.ts'
import { presentCall } from './records.ts'
import { closeCall, openCalls } from './service.ts'
import * as store from './store.ts'
import { mediaServerError } from './web-call.ts'

/**
 * One call on request (POST /v1/calls): the checks of a batch contact (the number and the agent
 * are the organization's, a voice agent, active, a valid E.164 number, credits for an average
 * call held), then the call record (201) and, after the answer, the dial: room, agent, SIP
 * (dialled-call.ts). What happens next is in its events (GET /v1/calls/{id}/events).
 */

/** The hold of a call on request stops counting after this long should its close never come. */
const REQUESTED_HOLD_TTL_MS = 6 * 60 * 60 * 1000

/** Where the room of one call on request begins; its callee's SIP identity is `contact-<callId>`. */
export const REQUESTED_ROOM_PREFIX = 'call-request-'
export const requestedRoomName = () => `${REQUESTED_ROOM_PREFIX}${randomUUID()}`

export const placeRequestedCall = async (
  ctx: AppContext,
  { organizationId, keyId }: { organizationId: string; keyId: string | null },
  body: CreateCall,
) => {
  const phoneNumber = await findPhoneNumber(ctx.db, { organizationId, id: body.fromPhoneNumberId })
  if (!phoneNumber) throw AppError.notFound('phone number')
  if (!checkE164(body.to))
    throw AppError.badRequest(`to: ${body.to} is not a valid phone number`, 'invalid_phone_number')
  if (await isListed(ctx.db, { organizationId, phoneNumber: body.to })) throw doNotCallRefusal(body.to)
  const agentId = body.agentId ?? phoneNumber.outboundAgentId
  if (!agentId)
    throw AppError.badRequest(
      `Phone number ${phoneNumber.number} has no outbound agent assigned: name one with agentId`,
      'no_outbound_agent',
    )
  const agent = await findAgent(ctx.db, { organizationId, id: agentId })
  if (!agent) throw AppError.notFound('agent')
  if (agent.agentArchitecture === 'text')
    throw AppError.badRequest(
      `agentId: ${agent.id} is a text agent; a call needs a pipeline or realtime agent`,
      'not_voice_agent',
    )
  if (!agent.active) throw AppError.agentInactive()
  if (!ctx.livekit) throw mediaServerError()
  const architecture = agent.agentArchitecture
  const microsPerMinute = await voiceRateFor(ctx, { agent, organizationId })
  const estimate = estimateCallMicros(microsPerMinute)
  // What replies and calls in flight hold is not there to spend (billing/holds.ts).
  const [balance, held] = await Promise.all([
    getBalanceMicros(ctx.db, organizationId),
    heldMicros(ctx.db, organizationId),
  ])
  if (balance - held < estimate) throw AppError.paymentRequired()

  const runtimeConfig = await agentRuntimeConfig(ctx, agent, organizationId)
  const roomName = requestedRoomName()
  const [callId = ''] = await openCalls(ctx, [
    {
      organizationId,
      agentId: agent.id,
      keyId,
      roomName,
      architecture,
      microsPerMinute,
      direction: 'outbound',
      phoneNumber: body.to,
    },
  ])
  const hold = await placeHold(ctx, {
    organizationId,
    amountMicros: estimate,
    kind: 'call',
    reference: callId,
    ttlMs: REQUESTED_HOLD_TTL_MS,
  })
  if (!hold) {
    await closeCall(ctx, { roomName, reason: 'insufficient_credits', status: 'failed' })
    throw AppError.paymentRequired()
  }
  const { metadata } = buildDispatchMetadata({
    runtimeConfig,
    callId,
    organizationId,
    roomName,
    party: {
      direction: 'outbound',
      contact: { contactId: callId, phone: body.to, name: null, fields: body.variables ?? {} },
      fromNumber: phoneNumber.number,
    },
  })
  await recordCallEvent(ctx, {
    callId,
    type: 'queued',
    data: { to: body.to, from: phoneNumber.number, agentId: agent.id, metadata: body.metadata ?? null },
  })
  const call = await store.findCall(ctx.db, { organizationId, id: callId })
  if (!call) throw new Error('the call just opened is missing')

  void dialRequested(ctx, { callId, roomName, metadata, to: body.to, trunkId: phoneNumber.sipTrunkId }).catch(
    (error: unknown) => ctx.logger.error({ err: error, callId }, 'a requested call could not be dialled'),
  )
  return { success: true as const, data: presentCall(call) }
}

const dialRequested = async (
  ctx: AppContext,
  {
    callId,
    roomName,
    metadata,
    to,
    trunkId,
  }: { callId: string; roomName: string; metadata: string; to: string; trunkId: string },
) => {
  await recordCallProgress(ctx, { callId, step: 'dialing' })
  const failure = await dialCall(ctx, { trunkId, number: to, contactId: callId, roomName, metadata })
  if (failure) {
    await closeUnansweredCall(ctx, { roomName, failure })
    return
  }
  // Billing starts at the answer, not at the ringing (LiveKit's participant_joined may say so too).
  await recordPersonJoined(ctx, roomName)
  // Once: the worker may have reported the callee's sip.callStatus active first.
  await recordCallProgress(ctx, { callId, step: 'answered' })
}

/**
 * POST /v1/calls/{id}/end: hangs up a call in progress: its room is deleted (everyone leaves, the
 * SIP leg hangs up) and the call closes, billed to now. Another organization's call answers 404;
 * a call already over answers 409 call_ended.
 */
export const endRequestedCall = async (
  ctx: AppContext,
  { organizationId, callId }: { organizationId: string; callId: string },
) => {
  const call = await store.findCall(ctx.db, { organizationId, id: callId })
  if (!call) throw AppError.notFound('call')
  if (call.status !== 'active') throw AppError.conflict('The call has ended', 'call_ended')
  if (ctx.livekit) {
    try {
      await ctx.livekit.deleteRoom(call.roomName)
    } catch (error) {
      throw mediaServerError(error)
    }
  }
  await closeCall(ctx, { roomName: call.roomName, reason: 'ended_by_request', status: 'ended' })
  const ended = await store.findCall(ctx.db, { organizationId, id: callId })
  if (!ended) throw AppError.notFound('call')
  return { success: true as const, data: presentCall(ended) }
}
