import type { CallingWindow, CallOutcome, RetryPolicy } from '@parley/shared'
import { sql } from 'kysely'
import { personJoinBilling } from '../../calls/index.ts'
import type { Executor } from '../../db/index.ts'
import type { RetryContext } from './retry.ts'

/**
 * SQL of one attempt's life after its claim (store.ts claims): tied to its call, answered or not,
 * completed, released when it never dialled, resolved when its worker was lost.
 */

/**
 * How an attempt ended without a plain conversation: the dial's outcomes, no agent came to talk,
 * or what the agent found (a voicemail box, a phone menu, an opt-out).
 */
export type UnansweredOutcome = Exclude<CallOutcome, 'completed' | 'transferred'>

// The writes below change an attempt and its contact together. Each is one statement (a
// data-modifying CTE), so both rows move atomically in one round trip instead of a transaction's four.

/** The job status a contact should take instead of `status` when its job was cancelled meanwhile. */
const unlessCancelled = (status: string) =>
  sql`case when (select status from batch_jobs where id = batch_contacts.batch_job_id) = 'cancelled'
    then 'cancelled' else ${status} end`

/**
 * Ties each attempt to its call just before the first LiveKit request, all in one statement (a
 * claim round ties its claims together). Only an attempt nobody has resolved yet can be tied:
 * when recovery released the claim first, it is left out of the answer and the dialer stops
 * without dialling it. The two conditional writes meet on one row, so exactly one wins. Answers
 * the ids of the attempts tied.
 */
export const tieAttemptsToCalls = async (
  db: Executor,
  ties: Array<{ attemptId: string; callId: string }>,
): Promise<string[]> => {
  if (ties.length === 0) return []
  const { rows } = await sql<{ attemptId: string }>`
    with tied as (
      update batch_attempts set call_id = tie.call_id
      from unnest(${ties.map((t) => t.attemptId)}::text[], ${ties.map((t) => t.callId)}::text[])
        as tie(attempt_id, call_id)
      where batch_attempts.id = tie.attempt_id and batch_attempts.call_id is null
        and batch_attempts.finished_at is null
      returning batch_attempts.id, batch_attempts.batch_contact_id, batch_attempts.call_id
    ),
    contact as (
      update batch_contacts set call_id = tied.call_id from tied where batch_contacts.id = tied.batch_contact_id
    )
    select id as "attemptId" from tied
  `.execute(db)
  return rows.map((row) => row.attemptId)
}

/** tieAttemptsToCalls for one attempt: whether it was tied. */
export const tieAttemptToCall = async (db: Executor, tie: { attemptId: string; callId: string }) =>
  (await tieAttemptsToCalls(db, [tie])).length > 0

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

export type AnsweredDial = { attemptId: string; callId: string }

/**
 * The callees picked up, for many dials in one statement. Each call records its person as joined
 * (its billing clock starts now when its agent is in the room already), and the attempt
 * is answered: the contact stays in flight, holding its slot, until the call closes. A call that
 * closed already (LiveKit ended it before the answer was recorded; its close found no answered
 * attempt to complete) completes its attempt and contact here instead.
 *
 * The call rows are written first and in room order, like the closer writes them: an answer and
 * a close of the same call wait for each other on its row, and the answer sees a close that
 * committed first (the row's latest version is re-read after the wait), so every answered call is
 * completed by exactly one of the two. The calls table is the calls domain's; recording the join
 * here (with calls/store.ts's own SQL for it) keeps that ordering in one statement. Answers
 * the attempts that completed (their slots are free).
 */
export const recordAnswers = async (
  db: Executor,
  { answers, now }: { answers: readonly AnsweredDial[]; now: Date },
): Promise<Set<string>> => {
  if (answers.length === 0) return new Set()
  const { rows } = await sql<{ attemptId: string; isCompleted: boolean }>`
    with answer as (
      select * from unnest(${answers.map((a) => a.attemptId)}::text[], ${answers.map((a) => a.callId)}::text[])
        as answer(attempt_id, call_id)
    ),
    locked as (
      select id from calls where id in (select call_id from answer) and status = 'active'
      order by room_name
      for update
    ),
    connected as (
      update calls
      set person_joined_at = coalesce(person_joined_at, now()), billing_since = ${personJoinBilling.billingSince},
        started_at = ${personJoinBilling.startedAt}
      where id in (select id from locked) and status = 'active'
      returning id
    ),
    attempt as (
      update batch_attempts
      set outcome = case when answer.call_id in (select id from connected) then 'answered' else 'completed' end,
        sip_status = 200,
        finished_at = case when answer.call_id in (select id from connected) then null else ${now}::timestamptz end
      from answer
      where batch_attempts.id = answer.attempt_id and batch_attempts.finished_at is null
      returning batch_attempts.id, batch_attempts.batch_contact_id, batch_attempts.outcome
    ),
    contact as (
      update batch_contacts
      set last_outcome = attempt.outcome, last_error = null, updated_at = ${now},
        status = case when attempt.outcome = 'completed' and batch_contacts.status = 'in_progress'
          then 'completed' else batch_contacts.status end
      from attempt
      where batch_contacts.id = attempt.batch_contact_id
    )
    select id as "attemptId", outcome = 'completed' as "isCompleted" from attempt
  `.execute(db)
  return new Set(rows.filter((row) => row.isCompleted).map((row) => row.attemptId))
}

/**
 * A dial ended without a conversation (or the agent found a machine, or the person opted out). The
 * contact waits until `retryAt` for its next attempt, or ends `finalStatus` (failed unless the
 * outcome reached the person) when there is none left; a job cancelled meanwhile cancels it instead.
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
    finalStatus = 'failed',
  }: {
    attemptId: string
    outcome: UnansweredOutcome
    sipStatus: number | null
    error: string | null
    now: Date
    retryAt: Date | null
    finalStatus?: 'completed' | 'failed'
  },
) => {
  await sql`
    with finished as (
      update batch_attempts
      set outcome = ${outcome}, sip_status = coalesce(${sipStatus}::integer, sip_status), error = ${error},
        finished_at = ${now}
      where id = ${attemptId} and finished_at is null
      returning batch_contact_id
    )
    update batch_contacts
    set status = ${unlessCancelled(retryAt ? 'pending' : finalStatus)}, last_outcome = ${outcome},
      last_error = ${error}, next_attempt_at = ${retryAt ?? now}, updated_at = ${now}
    where id in (select batch_contact_id from finished) and status = 'in_progress'
  `.execute(db)
}

export type UnfinishedAttempt = {
  attemptId: string
  callId: string
  jobId: string
  attemptNumber: number
  maxAttempts: number
}

/**
 * What the retry policy needs of an attempt (retry.ts): the outcomes of its contact's earlier
 * finished attempts, the job's policy, window and zone, the contact's zone. One statement.
 */
export const retryContextOf = async (db: Executor, attemptId: string): Promise<RetryContext | undefined> => {
  const { rows } = await sql<{
    earlierOutcomes: string[] | null
    attemptNumber: number
    maxAttempts: number
    retryPolicy: RetryPolicy | string | null
    callingWindow: CallingWindow | string | null
    jobZone: string
    contactZone: string | null
  }>`
    select a.attempt_number as "attemptNumber", j.max_attempts as "maxAttempts",
      j.retry_policy as "retryPolicy", j.calling_window as "callingWindow", j.timezone as "jobZone",
      c.time_zone as "contactZone",
      (select array_agg(e.outcome) from batch_attempts e where e.batch_contact_id = a.batch_contact_id
        and e.id <> a.id and e.finished_at is not null and e.outcome is not null) as "earlierOutcomes"
    from batch_attempts a
    join batch_jobs j on j.id = a.batch_job_id
    join batch_contacts c on c.id = a.batch_contact_id
    where a.id = ${attemptId}
  `.execute(db)
  const row = rows[0]
  if (!row) return undefined
  const json = <T>(value: T | string | null): T | null =>
    typeof value === 'string' ? (JSON.parse(value) as T) : value
  return {
    ...row,
    earlierOutcomes: row.earlierOutcomes ?? [],
    retryPolicy: json(row.retryPolicy),
    callingWindow: json(row.callingWindow),
  }
}

/**
 * The attempts of these calls that nothing has finished yet (ringing or answered), with their
 * jobs' attempt limits. Found through their contacts, as completeAttemptsOfClosedCalls finds them.
 */
export const listUnfinishedAttempts = async (
  db: Executor,
  { calls }: { calls: Array<{ callId: string; contactId: string }> },
): Promise<UnfinishedAttempt[]> => {
  if (calls.length === 0) return []
  const { rows } = await sql<UnfinishedAttempt>`
    select a.id as "attemptId", a.call_id as "callId", a.batch_job_id as "jobId",
      a.attempt_number as "attemptNumber", j.max_attempts as "maxAttempts"
    from batch_attempts a join batch_jobs j on j.id = a.batch_job_id
    where a.batch_contact_id = any(${calls.map((call) => call.contactId)}::text[])
      and a.call_id = any(${calls.map((call) => call.callId)}::text[]) and a.finished_at is null
  `.execute(db)
  return rows
}

export type AttemptOfClosedCall = {
  callId: string
  attemptId: string
  jobId: string
  outcome: string | null
  startedAt: Date
  finishedAt: Date | null
  isCompleted: boolean
  /** Whether the instance that claimed the attempt still beats (it records the dial's result). */
  isWorkerAlive: boolean
}

/**
 * The answered calls that just closed as plain conversations (completed, transferred, or an agent
 * error after the answer) complete their attempts, with the call's outcome, and their contacts,
 * in one statement, answering as well the
 * attempt of each call as it was before: the caller decides from it whether an attempt is a lost
 * dial. Calls that are no batch attempt's are left out. The attempts are found through their
 * contacts (the calls row names its contact), whose index holds few rows each.
 */
export const completeAttemptsOfClosedCalls = async (
  db: Executor,
  {
    calls,
    now,
    aliveAfter,
  }: {
    calls: Array<{ callId: string; contactId: string; outcome: CallOutcome }>
    now: Date
    aliveAfter: Date
  },
): Promise<AttemptOfClosedCall[]> => {
  if (calls.length === 0) return []
  const callIds = calls.map((call) => call.callId)
  const contactIds = calls.map((call) => call.contactId)
  const { rows } = await sql<AttemptOfClosedCall>`
    with closed as (
      select * from unnest(${callIds}::text[], ${calls.map((call) => call.outcome)}::text[]) as closed(call_id, outcome)
    ),
    attempt as (
      select id, call_id, batch_job_id, outcome, started_at, finished_at, instance_id from batch_attempts
      where batch_contact_id = any(${contactIds}::text[]) and call_id = any(${callIds}::text[])
    ),
    completed as (
      update batch_attempts set outcome = closed.outcome, finished_at = ${now}
      from closed
      where batch_attempts.call_id = closed.call_id
        and batch_attempts.id in (select id from attempt where outcome = 'answered' and finished_at is null)
        and batch_attempts.outcome = 'answered' and batch_attempts.finished_at is null
      returning batch_attempts.id, batch_attempts.batch_contact_id, batch_attempts.outcome
    ),
    contact as (
      update batch_contacts set status = 'completed', last_outcome = completed.outcome, updated_at = ${now}
      from completed
      where batch_contacts.id = completed.batch_contact_id and batch_contacts.status = 'in_progress'
    )
    select attempt.call_id as "callId", attempt.id as "attemptId", attempt.batch_job_id as "jobId",
      attempt.outcome, attempt.started_at as "startedAt", attempt.finished_at as "finishedAt",
      completed.id is not null as "isCompleted",
      (attempt.instance_id is null or exists (select 1 from server_instances i
        where i.id = attempt.instance_id and i.last_seen_at >= ${aliveAfter})) as "isWorkerAlive"
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
  { claimedBefore, aliveAfter, limit }: { claimedBefore: Date; aliveAfter: Date; limit: number },
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
    .where(({ or, and, eb, not, exists, selectFrom }) =>
      or([
        eb('started_at', '<', claimedBefore),
        // The claiming instance stopped beating: it will never record the dial's result.
        and([
          eb('instance_id', 'is not', null),
          not(
            exists(
              selectFrom('server_instances')
                .select('server_instances.id')
                .whereRef('server_instances.id', '=', 'batch_attempts.instance_id')
                .where('server_instances.last_seen_at', '>=', aliveAfter),
            ),
          ),
        ]),
      ]),
    )
    .orderBy('started_at')
    .limit(limit)
    .execute()

/**
 * A call that closed as `completed` turned out otherwise (the worker's decisive end after a
 * webhook's close, calls/close.ts settleLateWorkerEnd): its attempt takes the outcome, and its
 * contact, when it ended with this call, waits for `retryAt` (pending) or ends `finalStatus`.
 * Answers the job, or undefined when the call was no completed attempt's.
 */
export const refineAttemptOfCall = async (
  db: Executor,
  {
    callId,
    outcome,
    retryAt,
    finalStatus,
    now,
  }: {
    callId: string
    outcome: CallOutcome
    retryAt: (attemptId: string, jobStatus: string) => Promise<Date | null>
    finalStatus: 'completed' | 'failed'
    now: Date
  },
): Promise<string | undefined> => {
  const attempt = await db
    .selectFrom('batch_attempts as a')
    .innerJoin('batch_jobs as j', 'j.id', 'a.batch_job_id')
    .select(['a.id', 'a.batch_contact_id as contactId', 'a.batch_job_id as jobId', 'j.status as jobStatus'])
    .where('a.call_id', '=', callId)
    .where('a.outcome', '=', 'completed')
    .where('a.finished_at', 'is not', null)
    .executeTakeFirst()
  if (!attempt) return undefined
  const at = await retryAt(attempt.id, attempt.jobStatus)
  await db.updateTable('batch_attempts').set({ outcome }).where('id', '=', attempt.id).execute()
  await db
    .updateTable('batch_contacts')
    .set({
      status: at ? 'pending' : finalStatus,
      last_outcome: outcome,
      next_attempt_at: at ?? now,
      updated_at: now,
    })
    .where('id', '=', attempt.contactId)
    .where('status', '=', 'completed')
    .where('call_id', '=', callId)
    .execute()
  return attempt.jobId
}
