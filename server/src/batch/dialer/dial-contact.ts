import type { AgentRuntimeConfig } from '@parley/shared'
import type { AgentRow } from '../../agents/index.ts'
import { placeHolds } from '../../billing/index.ts'
import {
  buildDispatchMetadata,
  closeCall,
  deleteCallRoom,
  estimateCallMicros,
  openCalls,
  sipIdentityOf,
} from '../../calls/index.ts'
import type { AppContext } from '../../context.ts'
import { createWriteBatcher } from '../../db/write-batcher.ts'
import type { PhoneNumberRow } from '../../phone-numbers/index.ts'
import { toSipDialError } from '../../providers/livekit.ts'
import * as attemptStore from './attempt-store.ts'
import { nextAttemptAt } from './backoff.ts'
import * as store from './store.ts'

/** A dial's hold stops counting after this long should its call's close never come. */
const DIAL_HOLD_TTL_MS = 6 * 60 * 60 * 1000

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

/** A claimed contact with its call opened and its attempt tied to it: ready to dial. */
export type TiedDial = {
  target: DialTarget
  contact: store.ClaimedContact
  callId: string
  roomName: string
  metadata: string
}

/**
 * Opens the calls of a round's claims and ties each attempt to its call, in the order that makes
 * a crash safe: call rows, then the attempts tied to them (after which a dial may have happened),
 * and only then, in dialContact, room, agent and SIP dial. One statement each for the whole round.
 * Answers the dials whose tie held; a claim that recovery released first is not dialled.
 */
/**
 * Opens the claimed contacts' calls, reserves each dial's expected cost (a hold per call, settled
 * by the call's close), and ties them to their attempts. A contact whose dial the credits no
 * longer cover is released undialled, and `creditsRanOut` says so: the job fails with the reason.
 */
export const openDials = async (
  ctx: AppContext,
  { target, contacts }: { target: DialTarget; contacts: store.ClaimedContact[] },
): Promise<{ dials: TiedDial[]; creditsRanOut: boolean }> => {
  const { job, agent, runtimeConfig, phoneNumber } = target
  const roomNames = contacts.map((contact) => roomNameFor({ jobId: job.id, attemptId: contact.attemptId }))
  let callIds: string[]
  try {
    callIds = await openCalls(
      ctx,
      contacts.map((contact, index) => ({
        organizationId: job.organizationId,
        agentId: agent.id,
        keyId: job.keyId,
        roomName: roomNames[index] ?? '',
        architecture: agent.agentArchitecture === 'realtime' ? 'realtime' : 'pipeline',
        direction: 'outbound',
        phoneNumber: contact.phone,
        batchJobId: job.id,
        batchContactId: contact.contactId,
      })),
    )
  } catch (error) {
    const now = ctx.clock.now()
    for (const contact of contacts) await attemptStore.releaseUndialledClaim(ctx.db, { ...contact, now })
    throw error
  }
  // No dial without its paid-for hold (billing/holds.ts): the contacts past what the credits cover wait again.
  const held = new Set(
    await placeHolds(ctx, {
      organizationId: job.organizationId,
      amountMicros: estimateCallMicros(agent.agentArchitecture === 'realtime' ? 'realtime' : 'pipeline'),
      kind: 'call',
      references: callIds,
      ttlMs: DIAL_HOLD_TTL_MS,
    }).catch(async (error: unknown) => {
      const now = ctx.clock.now()
      for (const contact of contacts) await attemptStore.releaseUndialledClaim(ctx.db, { ...contact, now })
      await Promise.all(
        roomNames.map((roomName) => closeCall(ctx, { roomName, reason: 'claim_released', status: 'failed' })),
      )
      throw error
    }),
  )
  const unpaid = contacts.filter((_, index) => !held.has(callIds[index] ?? ''))
  if (unpaid.length > 0) {
    const now = ctx.clock.now()
    for (const contact of unpaid) await attemptStore.releaseUndialledClaim(ctx.db, { ...contact, now })
    await Promise.all(
      unpaid.map((contact) =>
        closeCall(ctx, {
          roomName: roomNameFor({ jobId: job.id, attemptId: contact.attemptId }),
          reason: 'insufficient_credits',
          status: 'failed',
        }),
      ),
    )
  }
  const paid = contacts.flatMap((contact, index) =>
    held.has(callIds[index] ?? '') ? [{ contact, index }] : [],
  )
  const unknown = new Set<string>()
  const dials = paid.map(({ contact, index }) => {
    const callId = callIds[index] ?? ''
    const roomName = roomNames[index] ?? ''
    const { metadata, unknownPlaceholders } = buildDispatchMetadata({
      runtimeConfig,
      callId,
      organizationId: job.organizationId,
      roomName,
      party: { direction: 'outbound', contact, batchJobId: job.id, fromNumber: phoneNumber.number },
    })
    for (const name of unknownPlaceholders) unknown.add(name)
    return { target, contact, callId, roomName, metadata }
  })
  await reportUnknownPlaceholders(ctx, job, [...unknown])

  const tied = new Set(
    await attemptStore.tieAttemptsToCalls(
      ctx.db,
      dials.map(({ contact, callId }) => ({ attemptId: contact.attemptId, callId })),
    ),
  )
  // Recovery released these claims first (it judged this worker gone): dial nothing.
  const released = dials.filter(({ contact }) => !tied.has(contact.attemptId))
  await Promise.all(
    released.map(({ roomName }) => closeCall(ctx, { roomName, reason: 'claim_released', status: 'failed' })),
  )
  return {
    dials: dials.filter(({ contact }) => tied.has(contact.attemptId)),
    creditsRanOut: unpaid.length > 0,
  }
}

const answerers = new WeakMap<AppContext, (answer: attemptStore.AnsweredDial) => Promise<boolean>>()

/** Records an answered dial with the others answered meanwhile; true when its contact completed. */
const recordAnswer = (ctx: AppContext, answer: attemptStore.AnsweredDial) => {
  let record = answerers.get(ctx)
  if (!record) {
    record = createWriteBatcher(async (answers: readonly attemptStore.AnsweredDial[]) => {
      const completed = await attemptStore.recordAnswers(ctx.db, { answers, now: ctx.clock.now() })
      return answers.map(({ attemptId }) => completed.has(attemptId))
    })
    answerers.set(ctx, record)
  }
  return record(answer)
}

/**
 * One attempt of one tied dial: room, agent and SIP dial. An answered call keeps its slot until
 * it closes; anything else is recorded for a retry or a failure. Answers whether the contact
 * gave its slot back (the job changed for the other dialers).
 */
export const dialContact = async (
  ctx: AppContext,
  { target, contact, callId, roomName, metadata }: TiedDial,
): Promise<boolean> => {
  const { job, phoneNumber } = target
  const livekit = ctx.livekit
  if (!livekit) throw new Error('dialContact needs LiveKit; the claim round checks it first')

  try {
    await livekit.createRoom({ name: roomName, emptyTimeoutSeconds: EMPTY_ROOM_SECONDS, metadata })
    await livekit.dispatchAgent({ roomName, metadata })
    await livekit.dialSip({
      trunkId: phoneNumber.sipTrunkId,
      number: contact.phone,
      roomName,
      identity: sipIdentityOf(contact.contactId),
      ringingTimeoutSeconds: RINGING_TIMEOUT_SECONDS,
    })
  } catch (error) {
    const failure = toSipDialError(error)
    const now = ctx.clock.now()
    await attemptStore.recordUnanswered(ctx.db, {
      ...contact,
      outcome: failure.outcome,
      sipStatus: failure.sipStatus,
      error: failure.message,
      now,
      retryAt: nextAttemptAt({
        attemptNumber: contact.attemptNumber,
        maxAttempts: job.maxAttempts,
        now,
        baseMs: ctx.config.batchRetryBaseMs,
      }),
    })
    await closeCall(ctx, { roomName, reason: failure.outcome, status: 'failed' })
    await deleteCallRoom(ctx, { roomName, why: 'an unanswered dial' })
    return true
  }

  // Billing starts at the answer, not at the ringing (LiveKit's participant_joined may say so too).
  return recordAnswer(ctx, { attemptId: contact.attemptId, callId })
}
