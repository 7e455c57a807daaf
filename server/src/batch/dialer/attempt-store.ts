import { sql } from 'kysely'
import type { Executor } from '../../db/index.ts'

/**
 * SQL of one attempt's life after its claim (store.ts claims): tied to its call, answered or not,
 * completed, released when it never dialled, resolved when its worker was lost.
 */

export type UnansweredOutcome = 'busy' | 'no_answer' | 'failed'

// The writes below change an attempt and its contact together. Each is one statement (a
// data-modifying CTE), so both rows move atomically in one round trip instead of a transaction's four.

/** The job status a contact should take instead of `status` when its job was cancelled meanwhile. */
const unlessCancelled = (status: string) =>
  sql`case when (select status from batch_jobs where id = batch_contacts.batch_job_id) = 'cancelled'
    then 'cancelled' else ${status} end`

/**
 * Ties the attempt to its call just before the first LiveKit request. Only an attempt nobody has
 * resolved yet can be tied: when recovery released the claim first, this answers false and the
 * dialer stops without dialling. The two conditional writes meet on one row, so exactly one wins.
 */
export const tieAttemptToCall = async (
  db: Executor,
  { attemptId, callId }: { attemptId: string; callId: string },
) => {
  const { rows } = await sql<{ id: string }>`
    with tied as (
      update batch_attempts set call_id = ${callId}
      where id = ${attemptId} and call_id is null and finished_at is null
      returning batch_contact_id
    )
    update batch_contacts set call_id = ${callId}
    where id in (select batch_contact_id from tied)
    returning id
  `.execute(db)
  return rows.length > 0
}

/**
 * Undoes a claim that never reached LiveKit: the attempt row goes (no dial was made, so none is
 * recorded or counted) and the contact waits again. Only while the attempt has no call tied.
 */
export const releaseUndialledClaim = async (
  db: Executor,
  { attemptId, now }: { attemptId: string; now: Date },
) => {
  const { rows } = await sql<{ id: string }>`
    with released as (
      delete from batch_attempts
      where id = ${attemptId} and call_id is null and finished_at is null
      returning batch_contact_id
    ),
    contact as (
      update batch_contacts
      set status = ${unlessCancelled('pending')}, attempts = greatest(attempts - 1, 0), updated_at = ${now}
      where id in (select batch_contact_id from released) and status = 'in_progress'
    )
    select batch_contact_id as id from released
  `.execute(db)
  return rows.length > 0
}

/** The callee picked up: the contact stays in flight (holding its slot) until the call closes. */
export const recordAnswered = async (db: Executor, { attemptId, now }: { attemptId: string; now: Date }) => {
  await sql`
    with answered as (
      update batch_attempts set outcome = 'answered', sip_status = 200
      where id = ${attemptId} and finished_at is null
      returning batch_contact_id
    )
    update batch_contacts set last_outcome = 'answered', last_error = null, updated_at = ${now}
    where id in (select batch_contact_id from answered)
  `.execute(db)
}

/**
 * A dial ended without a conversation. The contact waits until `retryAt` for its next attempt, or
 * fails when there is none left; a job cancelled meanwhile cancels it instead.
 */
export const recordUnanswered = async (
  db: Executor,
  {
    attemptId,
    outcome,
    sipStatus,
    error,
    now,
    retryAt,
  }: {
    attemptId: string
    outcome: UnansweredOutcome
    sipStatus: number | null
    error: string
    now: Date
    retryAt: Date | null
  },
) => {
  await sql`
    with finished as (
      update batch_attempts
      set outcome = ${outcome}, sip_status = ${sipStatus}, error = ${error}, finished_at = ${now}
      where id = ${attemptId} and finished_at is null
      returning batch_contact_id
    )
    update batch_contacts
    set status = ${unlessCancelled(retryAt ? 'pending' : 'failed')}, last_outcome = ${outcome},
      last_error = ${error}, next_attempt_at = ${retryAt ?? now}, updated_at = ${now}
    where id in (select batch_contact_id from finished) and status = 'in_progress'
  `.execute(db)
}

/**
 * The call of an answered attempt closed: attempt and contact complete. Answers the job id, or
 * undefined when the call was no answered, unfinished batch attempt (then nothing changes). With
 * `onlyIfClosed`, only when the call row is no longer active: the dialer's check, right after it
 * recorded the answer, for a call that closed before (its close found no answered attempt).
 */
export const completeAnsweredCall = async (
  db: Executor,
  { callId, now, onlyIfClosed = false }: { callId: string; now: Date; onlyIfClosed?: boolean },
) => {
  const { rows } = await sql<{ jobId: string }>`
    with completed as (
      update batch_attempts set outcome = 'completed', finished_at = ${now}
      where call_id = ${callId} and outcome = 'answered' and finished_at is null
        and (not ${onlyIfClosed}::boolean
          or exists (select 1 from calls where calls.id = ${callId} and calls.status <> 'active'))
      returning batch_contact_id, batch_job_id
    ),
    contact as (
      update batch_contacts set status = 'completed', last_outcome = 'completed', updated_at = ${now}
      where id in (select batch_contact_id from completed) and status = 'in_progress'
    )
    select batch_job_id as "jobId" from completed
  `.execute(db)
  return rows[0]?.jobId
}

export type AttemptOfClosedCall = {
  callId: string
  attemptId: string
  jobId: string
  outcome: string | null
  startedAt: Date
  finishedAt: Date | null
  isCompleted: boolean
}

/**
 * completeAnsweredCall for calls that just closed, in one statement, answering as well the
 * attempt of each call as it was before: the caller decides from it whether an attempt is a lost
 * dial. Calls that are no batch attempt's are left out. The attempts are found through their
 * contacts (the calls row names its contact), whose index holds few rows each.
 */
export const completeAttemptsOfClosedCalls = async (
  db: Executor,
  { calls, now }: { calls: Array<{ callId: string; contactId: string }>; now: Date },
): Promise<AttemptOfClosedCall[]> => {
  if (calls.length === 0) return []
  const callIds = calls.map((call) => call.callId)
  const contactIds = calls.map((call) => call.contactId)
  const { rows } = await sql<AttemptOfClosedCall>`
    with attempt as (
      select id, call_id, batch_job_id, outcome, started_at, finished_at from batch_attempts
      where batch_contact_id = any(${contactIds}::text[]) and call_id = any(${callIds}::text[])
    ),
    completed as (
      update batch_attempts set outcome = 'completed', finished_at = ${now}
      where id in (select id from attempt where outcome = 'answered' and finished_at is null)
        and outcome = 'answered' and finished_at is null
      returning id, batch_contact_id
    ),
    contact as (
      update batch_contacts set status = 'completed', last_outcome = 'completed', updated_at = ${now}
      where id in (select batch_contact_id from completed) and status = 'in_progress'
    )
    select attempt.call_id as "callId", attempt.id as "attemptId", attempt.batch_job_id as "jobId",
      attempt.outcome, attempt.started_at as "startedAt", attempt.finished_at as "finishedAt",
      completed.id is not null as "isCompleted"
    from attempt left join completed on completed.id = attempt.id
  `.execute(db)
  return rows
}

/**
 * A dial whose result was lost with its worker, resolved once its call is over. The dial may have
 * connected, so the contact is not redialled: it fails with the reason (retry-failed can re-queue
 * it on purpose). Conditional on the attempt still being unresolved.
 */
export const resolveLostDial = async (
  db: Executor,
  { attemptId, error, now }: { attemptId: string; error: string; now: Date },
) => {
  const { rows } = await sql<{ id: string }>`
    with lost as (
      update batch_attempts set outcome = 'failed', error = ${error}, finished_at = ${now}
      where id = ${attemptId} and outcome is null and finished_at is null
      returning batch_contact_id
    ),
    contact as (
      update batch_contacts
      set status = 'failed', last_outcome = 'failed', last_error = ${error}, updated_at = ${now}
      where id in (select batch_contact_id from lost) and status = 'in_progress'
    )
    select batch_contact_id as id from lost
  `.execute(db)
  return rows.length > 0
}

export type StaleAttempt = {
  attemptId: string
  contactId: string
  jobId: string
  attemptNumber: number
  callId: string | null
}

/** Attempts claimed before `claimedBefore` whose dial result was never recorded. */
export const listStaleAttempts = async (
  db: Executor,
  { claimedBefore, limit }: { claimedBefore: Date; limit: number },
): Promise<StaleAttempt[]> =>
  db
    .selectFrom('batch_attempts')
    .select([
      'id as attemptId',
      'batch_contact_id as contactId',
      'batch_job_id as jobId',
      'attempt_number as attemptNumber',
      'call_id as callId',
    ])
    .where('finished_at', 'is', null)
    .where('outcome', 'is', null)
    .where('started_at', '<', claimedBefore)
    .orderBy('started_at')
    .limit(limit)
    .execute()
