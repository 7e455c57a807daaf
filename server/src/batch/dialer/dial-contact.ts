import type { AgentRow } from '../../agents/store.ts'
import { closeCall, markCallConnected, openCall } from '../../calls/service.ts'
import type * as callStore from '../../calls/store.ts'
import type { AppContext } from '../../context.ts'
import type { PhoneNumberRow } from '../../phone-numbers/store.ts'
import { toSipDialError } from '../../providers/livekit.ts'
import * as attemptStore from './attempt-store.ts'
import { retryDelayMs } from './backoff.ts'
import { type AgentRuntimeConfig, buildDispatchMetadata } from './metadata.ts'
import * as store from './store.ts'

/** How long LiveKit lets the phone ring before it answers CreateSIPParticipant with no-answer. */
export const RINGING_TIMEOUT_SECONDS = 30
/** LiveKit closes the room this long after the last participant left (the call's natural end). */
const EMPTY_ROOM_SECONDS = 30

/** Everything a dial needs beyond the contact, looked up once per claim round. */
export type DialTarget = {
  job: store.DialerJob
  agent: AgentRow
  runtimeConfig: AgentRuntimeConfig
  phoneNumber: PhoneNumberRow
}

/**
 * One room per attempt row, named from its ids: recovery finds the room of an attempt without the
 * worker that claimed it, every room of a job shares one prefix, and a claim that was released
 * and claimed again gets a new room (a room name is unique among call rows).
 */
export const roomNameFor = ({ jobId, attemptId }: { jobId: string; attemptId: string }) =>
  `${jobRoomPrefix(jobId)}${attemptId}`

export const jobRoomPrefix = (jobId: string) => `batch-${jobId}-`

const reportUnknownPlaceholders = async (ctx: AppContext, job: store.DialerJob, names: string[]) => {
  const fresh = names.filter((name) => !job.unknownPlaceholders.includes(name))
  if (fresh.length === 0) return
  job.unknownPlaceholders.push(...fresh)
  await store.addUnknownPlaceholders(ctx.db, { jobId: job.id, names: fresh })
}

/**
 * One attempt of one claimed contact, in the order that makes a crash safe: call row, then the
 * attempt tied to it (after which a dial may have happened), then room, agent and SIP dial. An
 * answered call keeps its slot until it closes; anything else is recorded for a retry or a failure.
 */
export const dialContact = async (
  ctx: AppContext,
  { target, contact }: { target: DialTarget; contact: store.ClaimedContact },
) => {
  const { job, agent, runtimeConfig, phoneNumber } = target
  const livekit = ctx.livekit
  const roomName = roomNameFor({ jobId: job.id, attemptId: contact.attemptId })
  if (!livekit) throw new Error('dialContact needs LiveKit; the claim round checks it first')

  let call: callStore.CallRow
  try {
    call = await openCall(ctx, {
      organizationId: job.organizationId,
      agentId: agent.id,
      keyId: job.keyId,
      roomName,
      architecture: agent.agentArchitecture === 'realtime' ? 'realtime' : 'pipeline',
      direction: 'outbound',
      phoneNumber: contact.phone,
      batchJobId: job.id,
      batchContactId: contact.contactId,
    })
  } catch (error) {
    await attemptStore.releaseUndialledClaim(ctx.db, { ...contact, now: ctx.clock.now() })
    throw error
  }
  const { metadata, unknownPlaceholders } = buildDispatchMetadata({
    runtimeConfig,
    contact,
    callId: call.id,
    organizationId: job.organizationId,
    roomName,
    batchJobId: job.id,
    fromNumber: phoneNumber.number,
  })
  await reportUnknownPlaceholders(ctx, job, unknownPlaceholders)

  const isTied = await attemptStore.tieAttemptToCall(ctx.db, { ...contact, callId: call.id })
  if (!isTied) {
    // Recovery released this claim first (it judged this worker gone): dial nothing.
    await closeCall(ctx, { roomName, reason: 'claim_released', status: 'failed' })
    return
  }

  try {
    await livekit.createRoom({ name: roomName, emptyTimeoutSeconds: EMPTY_ROOM_SECONDS, metadata })
    await livekit.dispatchAgent({ roomName, metadata })
    await livekit.dialSip({
      trunkId: phoneNumber.sipTrunkId,
      number: contact.phone,
      roomName,
      identity: `contact-${contact.contactId}`,
      ringingTimeoutSeconds: RINGING_TIMEOUT_SECONDS,
    })
  } catch (error) {
    const failure = toSipDialError(error)
    const now = ctx.clock.now()
    const hasAttemptsLeft = contact.attemptNumber < job.maxAttempts
    await attemptStore.recordUnanswered(ctx.db, {
      ...contact,
      outcome: failure.outcome,
      sipStatus: failure.sipStatus,
      error: failure.message,
      now,
      retryAt: hasAttemptsLeft
        ? new Date(
            now.getTime() +
              retryDelayMs({ attemptsMade: contact.attemptNumber, baseMs: ctx.config.batchRetryBaseMs }),
          )
        : null,
    })
    await closeCall(ctx, { roomName, reason: failure.outcome, status: 'failed' })
    await livekit.deleteRoom(roomName).catch((cause: unknown) => {
      ctx.logger.warn({ err: cause, roomName }, 'could not delete the room of an unanswered dial')
    })
    return
  }

  // Billing starts at the answer, not at the ringing (LiveKit's participant_joined may say so too).
  await markCallConnected(ctx, roomName)
  await attemptStore.recordAnswered(ctx.db, { ...contact, now: ctx.clock.now() })
  // LiveKit may have ended the call before the answer was recorded; its close found no answered
  // attempt then, so complete it here.
  await attemptStore.completeAnsweredCall(ctx.db, {
    callId: call.id,
    now: ctx.clock.now(),
    onlyIfClosed: true,
  })
}
