import type { CallOutcome } from '@parley/shared'
import { type CallRefiningStep, type CallRow, type CallsClosingStep, closeCall } from '../../calls/index.ts'
import type { AppContext } from '../../context.ts'
import type { Executor } from '../../db/index.ts'
import { aliveAfter } from '../../instances/liveness.ts'
import { announceJobChange } from '../service.ts'
import * as store from './attempt-store.ts'
import { roomNameFor } from './dial-contact.ts'
import { finalStatusOf, retryAtFor } from './retry.ts'

const STALE_ROWS_PER_TICK = 100

export const LOST_DIAL_ERROR =
  'The worker placing this call stopped during the dial; its result is unknown, so the contact is not redialled'

/**
 * Resolves attempts whose worker vanished (claimed longer ago than BATCH_STALE_CLAIM_MS, which
 * outlasts the ringing time-out, with no dial result recorded). The rule never dials twice:
 *
 * - No call tied to the attempt: the dialer ties the call in a conditional UPDATE before its first
 *   LiveKit request, and the release here is conditional on no tie, so one of the two wins. If the
 *   release wins, no request was ever sent, the claim is undone and the contact waits again; a
 *   worker still alive after all finds its tie refused and stops without dialling.
 * - A call tied: a dial may have reached the phone. While the attempt's room still exists at
 *   LiveKit the call may be live, so the contact keeps its slot; its close (webhook or sweeper)
 *   resolves it. Once the room is gone the call is closed here and the contact fails with the
 *   reason, never redialled automatically (retry-failed re-queues it on purpose).
 *
 * Answers the ids of the jobs whose contacts changed.
 */
export const recoverStaleClaims = async (ctx: AppContext) => {
  const now = ctx.clock.now()
  const stale = await store.listStaleAttempts(ctx.db, {
    claimedBefore: new Date(now.getTime() - ctx.config.batchStaleClaimMs),
    aliveAfter: aliveAfter(ctx),
    limit: STALE_ROWS_PER_TICK,
  })
  const changed = new Set<string>()
  for (const attempt of stale) {
    const roomName = roomNameFor(attempt)
    if (attempt.callId === null) {
      if (!(await store.releaseUndialledClaim(ctx.db, { ...attempt, now }))) continue
      // The call row may exist without its tie (stopped between the two): close it unbilled.
      await closeCall(ctx, { roomName, reason: 'claim_released', status: 'failed' })
      changed.add(attempt.jobId)
      continue
    }
    const liveRooms = ctx.livekit ? await ctx.livekit.listRoomNames([roomName]) : []
    if (liveRooms.includes(roomName)) continue
    await closeCall(ctx, { roomName, reason: 'dial_result_lost', status: 'failed' })
    if (
      await store.resolveLostDial(ctx.db, {
        attemptId: attempt.attemptId,
        error: LOST_DIAL_ERROR,
        now,
      })
    )
      changed.add(attempt.jobId)
  }
  return [...changed]
}

export const AGENT_UNAVAILABLE_ERROR = 'No voice agent joined the call; the contact is dialled again'

/** The closes settled by the retry policy rather than completed: no conversation took place. */
const settledByPolicy = new Set<string>([
  'voicemail_left',
  'voicemail_hung_up',
  'phone_menu',
  'opted_out',
  'agent_unavailable',
])

const errorOf = (outcome: string) => (outcome === 'agent_unavailable' ? AGENT_UNAVAILABLE_ERROR : null)

/** When the attempt's contact is tried next after `outcome` (retry.ts); null: never. */
const retryAtOf = async (
  ctx: AppContext,
  { tx, attemptId, outcome, now }: { tx: Executor; attemptId: string; outcome: CallOutcome; now: Date },
) => {
  const context = await store.retryContextOf(tx, attemptId)
  return context ? retryAtFor(context, { outcome, now, baseMs: ctx.config.batchRetryBaseMs }) : null
}

/**
 * A call that ended without a conversation (a voicemail box, a phone menu, an opt-out, no agent
 * came) ends its attempt (ringing or answered) with the call's outcome, and the contact waits for
 * its next try by the retry policy, or ends (completed when the person was reached, else failed).
 * Answers the jobs whose contacts changed.
 */
const settleByPolicy = async (
  ctx: AppContext,
  { tx, calls, now }: { tx: Executor; calls: CallRow[]; now: Date },
) => {
  const outcomes = new Map(calls.map((call) => [call.id, call]))
  const attempts = await store.listUnfinishedAttempts(tx, {
    calls: calls.flatMap((call) =>
      call.batchContactId ? [{ callId: call.id, contactId: call.batchContactId }] : [],
    ),
  })
  for (const attempt of attempts) {
    const call = outcomes.get(attempt.callId)
    const outcome = call?.outcome
    if (!call || !outcome || outcome === 'completed' || outcome === 'transferred') continue
    await store.recordUnanswered(tx, {
      attemptId: attempt.attemptId,
      outcome,
      sipStatus: call.sipStatus,
      error: errorOf(outcome),
      now,
      retryAt: await retryAtOf(ctx, { tx, attemptId: attempt.attemptId, outcome, now }),
      finalStatus: finalStatusOf(outcome),
    })
  }
  return attempts.map((attempt) => attempt.jobId)
}

/**
 * Settles calls of batch contacts as they close (on this instance, whatever closed them: LiveKit's
 * webhook, the sweeper, the dialer), inside the closing transaction: an answered attempt completes
 * its contact there with its call's outcome, so the close and the completion commit together; a
 * call that reached a machine, an opt-out or no agent is settled by the retry policy instead.
 * After the commit, a lost dial whose call is over resolves (its contact fails, never redialled),
 * and every job whose contacts changed is announced once.
 */
export const settleClosingCalls =
  (ctx: AppContext): CallsClosingStep =>
  async (tx, calls) => {
    const ofContact = (call: CallRow) =>
      call.batchJobId && call.batchContactId
        ? [{ callId: call.id, contactId: call.batchContactId, outcome: call.outcome ?? 'completed' }]
        : []
    const ofContacts = calls.flatMap(ofContact)
    if (ofContacts.length === 0) return undefined
    const now = ctx.clock.now()
    const retried = await settleByPolicy(ctx, {
      tx,
      calls: calls.filter((call) => call.batchJobId && settledByPolicy.has(call.outcome ?? '')),
      now,
    })
    const attempts = await store.completeAttemptsOfClosedCalls(tx, {
      calls: ofContacts,
      now,
      aliveAfter: aliveAfter(ctx),
    })
    const staleBefore = now.getTime() - ctx.config.batchStaleClaimMs
    // An unresolved attempt of a live worker gets its result from that worker; one whose worker
    // died (or went silent past BATCH_STALE_CLAIM_MS) is resolved now that its call is over.
    const lost = attempts.filter(
      (attempt) =>
        !attempt.isCompleted &&
        attempt.outcome === null &&
        attempt.finishedAt === null &&
        (!attempt.isWorkerAlive || attempt.startedAt.getTime() < staleBefore),
    )
    const changed = new Set([
      ...retried,
      ...attempts.filter((attempt) => attempt.isCompleted).map((attempt) => attempt.jobId),
    ])
    if (changed.size === 0 && lost.length === 0) return undefined
    return async () => {
      for (const attempt of lost) {
        if (
          await store.resolveLostDial(ctx.db, { attemptId: attempt.attemptId, error: LOST_DIAL_ERROR, now })
        )
          changed.add(attempt.jobId)
      }
      for (const jobId of changed) await announceJobChange(ctx, jobId)
    }
  }

/**
 * A call closed `completed` by a webhook turned out to be a voicemail, a phone menu or an opt-out
 * (the worker said so after): its attempt takes the outcome and its contact is re-settled by the
 * retry policy, while its job still runs. The job hears of it after the commit.
 */
export const settleRefinedCall =
  (ctx: AppContext): CallRefiningStep =>
  async (tx, call) => {
    const outcome = call.outcome
    if (!call.batchJobId || !outcome) return undefined
    const now = ctx.clock.now()
    const jobId = await store.refineAttemptOfCall(tx, {
      callId: call.id,
      outcome,
      now,
      finalStatus: finalStatusOf(outcome),
      retryAt: (attemptId, jobStatus) =>
        jobStatus === 'running' || jobStatus === 'paused'
          ? retryAtOf(ctx, { tx, attemptId, outcome, now })
          : Promise.resolve(null),
    })
    return jobId ? () => announceJobChange(ctx, jobId) : undefined
  }
