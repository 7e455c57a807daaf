import type { InboundCallOpen, InboundCallOpenRequest } from '@parley/shared'
import { INBOUND_ROOM_PREFIX } from '@parley/shared'
import { type AgentRow, findAgent } from '../agents/index.ts'
import { placeHold } from '../billing/index.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { ingestMemory, recallMemory } from '../memory/index.ts'
import { findPhoneNumberById } from '../phone-numbers/index.ts'
import { providerVoiceOf, resolveEndpoints } from '../providers/registry.ts'
import { onCallClosed } from './close.ts'
import { agentRuntimeConfig, buildDispatchMetadata } from './dispatch-metadata.ts'
import { recordCallEvent } from './events.ts'
import { recordAgentJoined, recordPersonJoined } from './presence.ts'
import { estimateCallMicros } from './pricing.ts'
import { closeCall, openCall } from './service.ts'
import * as store from './store.ts'

/**
 * A caller rang one of the organization's numbers (POST /v1/calls/inbound, the worker only).
 * LiveKit's dispatch rule put the caller in a room of their own and dispatched the worker with
 * the number's id; the worker asks here before it says a word. The call record opens
 * (`direction: inbound`, the caller's number, the number called), the number's inbound agent must
 * be a voice agent and active, and an average call's cost is held, as for every call; then the
 * worker gets the call's dispatch metadata, or a short refusal it says before hanging up. A
 * refused call is recorded as failed (its reason is the end reason), so missed calls show.
 */

/** An inbound call's hold stops counting after this long should its close never come. */
const INBOUND_HOLD_TTL_MS = 6 * 60 * 60 * 1000

/** What callers hear; they are not told why (credits are the organization's business). */
const REFUSALS = {
  insufficient_credits: 'Sorry, this line cannot take calls right now. Please try again later. Goodbye.',
  agent_unavailable: 'Sorry, nobody can take your call right now. Please try again later. Goodbye.',
  not_answering: 'Sorry, this number does not take calls. Goodbye.',
} as const

/** The memory identity of a caller: their number, as a returning visitor's user_identifier. */
export const callerIdentityOf = (callerNumber: string) => `user:${callerNumber}`

/**
 * The voice a refusal is said in: the agent's own TTS and voice for a pipeline agent, else the
 * catalogue's default TTS and voice. Null when neither can be served (the worker then hangs up
 * without a word).
 */
const refusalSpeech = async (ctx: AppContext, organizationId: string, agent: AgentRow | null) => {
  const own = agent?.agentArchitecture === 'pipeline' && agent.tts ? agent : null
  try {
    const { tts } = await resolveEndpoints(ctx, {
      organizationId,
      requests: {
        llm: null,
        stt: null,
        tts: { kind: 'tts', id: own?.tts ?? ctx.catalogue.defaults.tts },
        realtime: null,
      },
    })
    const voice =
      (own?.voiceId ? providerVoiceOf(ctx.catalogue, own.voiceId) : null) ??
      providerVoiceOf(ctx.catalogue, ctx.catalogue.defaults.voiceId)
    return tts && voice ? { ...tts, voice } : null
  } catch (error) {
    ctx.logger.warn({ err: error }, 'an inbound refusal without a voice')
    return null
  }
}

const refuse = async (
  ctx: AppContext,
  {
    reason,
    callId,
    organizationId,
    agent,
  }: { reason: keyof typeof REFUSALS; callId: string | null; organizationId: string; agent: AgentRow | null },
): Promise<{ success: true; data: InboundCallOpen }> => ({
  success: true,
  data: {
    accepted: false,
    callId,
    reason,
    message: REFUSALS[reason],
    speech: await refusalSpeech(ctx, organizationId, agent),
  },
})

export const openInboundCall = async (
  ctx: AppContext,
  body: InboundCallOpenRequest,
): Promise<{ success: true; data: InboundCallOpen }> => {
  if (!body.roomName.startsWith(INBOUND_ROOM_PREFIX))
    throw AppError.badRequest(`roomName must begin with ${INBOUND_ROOM_PREFIX}`)
  const phoneNumber = await findPhoneNumberById(ctx.db, body.phoneNumberId)
  if (!phoneNumber) throw AppError.notFound('phone number')
  const organizationId = phoneNumber.organizationId
  if (!phoneNumber.inboundAgentId)
    return refuse(ctx, { reason: 'not_answering', callId: null, organizationId, agent: null })
  const agent = await findAgent(ctx.db, { organizationId, id: phoneNumber.inboundAgentId })
  if (!agent || agent.agentArchitecture === 'text')
    return refuse(ctx, { reason: 'agent_unavailable', callId: null, organizationId, agent: null })
  const architecture = agent.agentArchitecture
  const calledNumber = body.calledNumber ?? phoneNumber.number

  // The room names the call: the same request again (a retry) answers the same call.
  const existing = await store.findCallByRoom(ctx.db, body.roomName)
  const call =
    existing ??
    (await openCall(ctx, {
      organizationId,
      agentId: agent.id,
      roomName: body.roomName,
      architecture,
      direction: 'inbound',
      phoneNumber: body.callerNumber,
      calledNumber,
      sipIdentity: body.sipParticipantIdentity,
    }))
  if (existing && existing.organizationId !== organizationId) throw AppError.notFound('phone number')
  if (call.status !== 'active')
    return refuse(ctx, {
      reason: call.endReason === 'insufficient_credits' ? 'insufficient_credits' : 'agent_unavailable',
      callId: call.id,
      organizationId,
      agent,
    })

  if (!existing) {
    if (!agent.active) {
      await closeCall(ctx, { roomName: call.roomName, reason: 'agent_unavailable', status: 'failed' })
      return refuse(ctx, { reason: 'agent_unavailable', callId: call.id, organizationId, agent })
    }
    const hold = await placeHold(ctx, {
      organizationId,
      amountMicros: estimateCallMicros(architecture),
      kind: 'call',
      reference: call.id,
      ttlMs: INBOUND_HOLD_TTL_MS,
      minBalanceMicros: ctx.config.chatMinBalanceMicros,
    })
    if (!hold) {
      await closeCall(ctx, { roomName: call.roomName, reason: 'insufficient_credits', status: 'failed' })
      return refuse(ctx, { reason: 'insufficient_credits', callId: call.id, organizationId, agent })
    }
  }

  const [runtimeConfig, memory] = await Promise.all([
    agentRuntimeConfig(ctx, agent, organizationId),
    recallMemory(ctx, { organizationId, identity: callerIdentityOf(body.callerNumber) }),
  ])
  const { metadata } = buildDispatchMetadata({
    runtimeConfig,
    callId: call.id,
    organizationId,
    roomName: call.roomName,
    party: {
      direction: 'inbound',
      callerNumber: body.callerNumber,
      calledNumber,
      sipParticipantIdentity: body.sipParticipantIdentity,
      memory,
    },
  })
  if (!existing) {
    // The caller was in the room before the call existed (their join's webhook found no call), and
    // so was the worker that asks: the billing clock starts now that both are known.
    await recordPersonJoined(ctx, call.roomName)
    if (body.agentParticipantSid)
      await recordAgentJoined(ctx, { roomName: call.roomName, participantSid: body.agentParticipantSid })
    await recordCallEvent(ctx, {
      callId: call.id,
      type: 'answered',
      data: { from: body.callerNumber, to: calledNumber, direction: 'inbound' },
    })
  }
  return {
    success: true,
    data: { accepted: true, callId: call.id, dispatch: JSON.parse(metadata) as never },
  }
}

/** Ends for which the person never spoke with the agent: a machine answered the call. */
const MACHINE_ENDS = new Set(['voicemail_left', 'voicemail_hung_up', 'phone_menu'])

/**
 * A phone call's transcript joins the memory of the number on the line when it ends, as a chat's
 * joins its user's: the caller of an inbound call, the person dialled on an outbound one
 * (`user:<number>`, the identity the next call with that number recalls in its setup). Calls
 * that failed, and calls a machine answered, leave nothing to remember.
 */
export const rememberPhoneCallers = (ctx: AppContext) =>
  onCallClosed(ctx, async (call) => {
    if (!call.phoneNumber || call.status === 'failed') return
    if (call.endReason && MACHINE_ENDS.has(call.endReason)) return
    const transcript = await store.listTranscript(ctx.db, call.id)
    if (transcript.length === 0) return
    ingestMemory(ctx, {
      organizationId: call.organizationId,
      identity: callerIdentityOf(call.phoneNumber),
      transcript: transcript.map(({ role, content }) => ({ role, content })),
    })
  })
