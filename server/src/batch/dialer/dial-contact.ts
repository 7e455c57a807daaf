import type { AgentRuntimeConfig } from '@parley/shared'
import type { AgentRow } from '../../agents/index.ts'
import { closeCall, closeUnansweredCall, dialCall, openDialledCalls } from '../../calls/index.ts'
import type { AppContext } from '../../context.ts'
import { createWriteBatcher } from '../../db/write-batcher.ts'
import type { PhoneNumberRow } from '../../phone-numbers/index.ts'
import * as attemptStore from './attempt-store.ts'
import { retryAtFor } from './retry.ts'
import * as store from './store.ts'

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
 * Asks calls/ to open the claimed contacts' calls with their holds, then ties each attempt to its
 * call, in the order that makes a crash safe: call rows, then the attempts tied to them (after
 * which a dial may have happened), and only then, in dialContact, room, agent and SIP dial. One
 * statement each for the whole round. A contact whose dial the credits no longer cover is
 * released undialled, and `creditsRanOut` says so: the job fails with the reason. Answers the
 * dials whose tie held; a claim that recovery released first is not dialled.
 */
export const openDials = async (
  ctx: AppContext,
  { target, contacts }: { target: DialTarget; contacts: store.ClaimedContact[] },
): Promise<{ dials: TiedDial[]; creditsRanOut: boolean }> => {
  const { job, agent, runtimeConfig, phoneNumber } = target
  const { opened, unpaid, unknownPlaceholders } = await openDialledCalls(ctx, {
    source: {
      organizationId: job.organizationId,
      keyId: job.keyId,
      agent,
      runtimeConfig,
      fromNumber: phoneNumber.number,
      batchJobId: job.id,
    },
    contacts: contacts.map((contact) => ({
      contact,
      roomName: roomNameFor({ jobId: job.id, attemptId: contact.attemptId }),
    })),
    releaseUndialled: async (indexes) => {
      const now = ctx.clock.now()
      for (const index of indexes) {
        const contact = contacts[index]
        if (contact) await attemptStore.releaseUndialledClaim(ctx.db, { ...contact, now })
      }
    },
  })
  const dials = opened.flatMap(({ index, callId, metadata }) => {
    const contact = contacts[index]
    if (!contact) return []
    return [
      {
        target,
        contact,
        callId,
        roomName: roomNameFor({ jobId: job.id, attemptId: contact.attemptId }),
        metadata,
      },
    ]
  })
  await reportUnknownPlaceholders(ctx, job, unknownPlaceholders)

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
 * One attempt of one tied dial: calls/ creates the room, dispatches the agent and dials. An
 * answered call keeps its slot until it closes; anything else is recorded for a retry or a
 * failure. Answers whether the contact gave its slot back (the job changed for the other dialers).
 */
export const dialContact = async (
  ctx: AppContext,
  { target, contact, callId, roomName, metadata }: TiedDial,
): Promise<boolean> => {
  const { phoneNumber } = target
  const failure = await dialCall(ctx, {
    trunkId: phoneNumber.sipTrunkId,
    number: contact.phone,
    contactId: contact.contactId,
    roomName,
    metadata,
  })
  if (failure) {
    const now = ctx.clock.now()
    const context = await attemptStore.retryContextOf(ctx.db, contact.attemptId)
    await attemptStore.recordUnanswered(ctx.db, {
      ...contact,
      outcome: failure.outcome,
      sipStatus: failure.sipStatus,
      error: failure.message,
      now,
      retryAt: context
        ? retryAtFor(context, { outcome: failure.outcome, now, baseMs: ctx.config.batchRetryBaseMs })
        : null,
    })
    await closeUnansweredCall(ctx, { roomName, failure })
    return true
  }

  // Billing starts at the answer, not at the ringing (LiveKit's participant_joined may say so too).
  return recordAnswer(ctx, { attemptId: contact.attemptId, callId })
}
