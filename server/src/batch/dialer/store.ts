import type { CallingWindow } from '@parley/shared'
import { sql } from 'kysely'
import { ulid } from 'ulid'
import type { Executor } from '../../db/index.ts'

/** What the dialer needs of a job. */
export type DialerJob = {
  id: string
  organizationId: string
  phoneNumberId: string
  agentId: string
  keyId: string | null
  status: string
  maxAttempts: number
  timezone: string
  callingWindow: CallingWindow | null
  unknownPlaceholders: string[]
}

/** A contact whose attempt this worker claimed: it may now open a call and dial. */
export type ClaimedContact = {
  contactId: string
  attemptId: string
  attemptNumber: number
  phone: string
  name: string | null
  fields: Record<string, unknown>
}

export type ClaimCandidate = { id: string; timeZone: string | null }

/** Which due contacts to claim now and which to put off until their window opens. */
export type ClaimChoice = { claim: string[]; defer: Array<{ id: string; until: Date }> }

export type UnansweredOutcome = 'busy' | 'no_answer' | 'failed'

const jobColumns = [
  'id',
  'organization_id as organizationId',
  'phone_number_id as phoneNumberId',
  'agent_id as agentId',
  'key_id as keyId',
  'status',
  'max_attempts as maxAttempts',
  'timezone',
  'calling_window as callingWindow',
  'unknown_placeholders as unknownPlaceholders',
] as const

export const findDialerJob = async (db: Executor, id: string): Promise<DialerJob | undefined> =>
  (await db.selectFrom('batch_jobs').select(jobColumns).where('id', '=', id).executeTakeFirst()) as
    | DialerJob
    | undefined

/**
 * pending → running, or scheduled → running once its start has come. The start time is checked
 * here, in the one conditional UPDATE, so no caller (an early queue run, a skewed worker) can start
 * a scheduled job before its instant.
 */
export const startJob = async (db: Executor, { id, now }: { id: string; now: Date }) => {
  const result = await db
    .updateTable('batch_jobs')
    .set({ status: 'running', started_at: sql`coalesce(started_at, ${now})`, updated_at: now })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'pending'),
        eb.and([eb('status', '=', 'scheduled'), eb('scheduled_start_time', '<=', now)]),
      ]),
    )
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Pending jobs (normally started by their queued batch.start) and scheduled ones whose time has come. */
export const listStartableJobIds = async (db: Executor, { now }: { now: Date }) =>
  (
    await db
      .selectFrom('batch_jobs')
      .select('id')
      .where((eb) =>
        eb.or([
          eb('status', '=', 'pending'),
          eb.and([eb('status', '=', 'scheduled'), eb('scheduled_start_time', '<=', now)]),
        ]),
      )
      .execute()
  ).map((row) => row.id)

export const listRunningJobIds = async (db: Executor) =>
  (await db.selectFrom('batch_jobs').select('id').where('status', '=', 'running').execute()).map(
    (row) => row.id,
  )

/**
 * Claims up to the job's free slots in one transaction. The job row is locked FOR UPDATE first, so
 * claims of one job are serialized across every worker: the in-flight count read next cannot
 * change until this transaction commits, and in_progress contacts never exceed the limit. A claim
 * is an attempt row plus the contact moved to in_progress: nothing is dialled before it commits.
 * Contacts outside their calling window get a later next_attempt_at and keep no slot.
 */
export const claimContacts = async (
  db: Executor,
  {
    jobId,
    now,
    scanFactor,
    choose,
  }: {
    jobId: string
    now: Date
    scanFactor: number
    choose: (candidates: ClaimCandidate[], freeSlots: number) => ClaimChoice
  },
): Promise<ClaimedContact[]> =>
  db.transaction().execute(async (trx) => {
    const job = await trx
      .selectFrom('batch_jobs')
      .select(['status', 'concurrent_call_limit'])
      .where('id', '=', jobId)
      .forUpdate()
      .executeTakeFirst()
    if (job?.status !== 'running') return []
    const { inFlight } = await trx
      .selectFrom('batch_contacts')
      .select(sql<number>`count(*)::int`.as('inFlight'))
      .where('batch_job_id', '=', jobId)
      .where('status', '=', 'in_progress')
      .executeTakeFirstOrThrow()
    const freeSlots = job.concurrent_call_limit - inFlight
    if (freeSlots <= 0) return []
    const candidates = await trx
      .selectFrom('batch_contacts')
      .select(['id', 'time_zone as timeZone'])
      .where('batch_job_id', '=', jobId)
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .orderBy('next_attempt_at')
      .orderBy('position')
      .limit(freeSlots * scanFactor)
      .execute()
    if (candidates.length === 0) return []
    const { claim, defer } = choose(candidates, freeSlots)
    for (const { id, until } of defer) {
      await trx
        .updateTable('batch_contacts')
        .set({ next_attempt_at: until, updated_at: now })
        .where('id', '=', id)
        .execute()
    }
    if (claim.length === 0) return []
    const contacts = await trx
      .updateTable('batch_contacts')
      .set({ status: 'in_progress', attempts: sql`attempts + 1`, updated_at: now })
      .where('id', 'in', claim.slice(0, freeSlots))
      .where('status', '=', 'pending')
      .returning(['id', 'attempts', 'phone', 'name', 'fields'])
      .execute()
    const claimed = contacts.map(
      (contact): ClaimedContact => ({
        contactId: contact.id,
        attemptId: ulid(),
        attemptNumber: contact.attempts,
        phone: contact.phone,
        name: contact.name,
        fields: contact.fields,
      }),
    )
    await trx
      .insertInto('batch_attempts')
      .values(
        claimed.map((contact) => ({
          id: contact.attemptId,
          batch_contact_id: contact.contactId,
          batch_job_id: jobId,
          attempt_number: contact.attemptNumber,
          started_at: now,
        })),
      )
      .execute()
    return claimed
  })

/**
 * Ties the attempt to its call just before the first LiveKit request. Only an attempt nobody has
 * resolved yet can be tied: when recovery released the claim first, this answers false and the
 * dialer stops without dialling. The two conditional UPDATEs meet on one row, so exactly one wins.
 */
export const tieAttemptToCall = async (
  db: Executor,
  { attemptId, contactId, callId }: { attemptId: string; contactId: string; callId: string },
) =>
  db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('batch_attempts')
      .set({ call_id: callId })
      .where('id', '=', attemptId)
      .where('call_id', 'is', null)
      .where('finished_at', 'is', null)
      .executeTakeFirst()
    if (Number(result.numUpdatedRows) === 0) return false
    await trx.updateTable('batch_contacts').set({ call_id: callId }).where('id', '=', contactId).execute()
    return true
  })

/**
 * Undoes a claim that never reached LiveKit: the attempt row goes (no dial was made, so none is
 * recorded or counted) and the contact waits again. Only while the attempt has no call tied.
 */
export const releaseUndialledClaim = async (
  db: Executor,
  { attemptId, contactId, now }: { attemptId: string; contactId: string; now: Date },
) =>
  db.transaction().execute(async (trx) => {
    const deleted = await trx
      .deleteFrom('batch_attempts')
      .where('id', '=', attemptId)
      .where('call_id', 'is', null)
      .where('finished_at', 'is', null)
      .executeTakeFirst()
    if (Number(deleted.numDeletedRows) === 0) return false
    await trx
      .updateTable('batch_contacts')
      .set({
        status: sql`case when (select status from batch_jobs where id = batch_contacts.batch_job_id) = 'cancelled' then 'cancelled' else 'pending' end`,
        attempts: sql`greatest(attempts - 1, 0)`,
        updated_at: now,
      } as never)
      .where('id', '=', contactId)
      .where('status', '=', 'in_progress')
      .execute()
    return true
  })

/** The callee picked up: the contact stays in flight (holding its slot) until the call closes. */
export const recordAnswered = async (
  db: Executor,
  { attemptId, contactId, now }: { attemptId: string; contactId: string; now: Date },
) =>
  db.transaction().execute(async (trx) => {
    await trx
      .updateTable('batch_attempts')
      .set({ outcome: 'answered', sip_status: 200 })
      .where('id', '=', attemptId)
      .where('finished_at', 'is', null)
      .execute()
    await trx
      .updateTable('batch_contacts')
      .set({ last_outcome: 'answered', last_error: null, updated_at: now })
      .where('id', '=', contactId)
      .execute()
  })

/**
 * A dial ended without a conversation. The contact waits until `retryAt` for its next attempt, or
 * fails when there is none left; a job cancelled meanwhile cancels it instead.
 */
export const recordUnanswered = async (
  db: Executor,
  {
    attemptId,
    contactId,
    outcome,
    sipStatus,
    error,
    now,
    retryAt,
  }: {
    attemptId: string
    contactId: string
    outcome: UnansweredOutcome
    sipStatus: number | null
    error: string
    now: Date
    retryAt: Date | null
  },
) =>
  db.transaction().execute(async (trx) => {
    await trx
      .updateTable('batch_attempts')
      .set({ outcome, sip_status: sipStatus, error, finished_at: now })
      .where('id', '=', attemptId)
      .execute()
    const next = retryAt ? sql`'pending'` : sql`'failed'`
    await trx
      .updateTable('batch_contacts')
      .set({
        status: sql`case when (select status from batch_jobs where id = batch_contacts.batch_job_id) = 'cancelled' then 'cancelled' else ${next} end`,
        last_outcome: outcome,
        last_error: error,
        next_attempt_at: retryAt ?? now,
        updated_at: now,
      } as never)
      .where('id', '=', contactId)
      .where('status', '=', 'in_progress')
      .execute()
  })

/**
 * The call of an answered attempt closed: attempt and contact complete. Answers the job id, or
 * undefined when the call was no answered, unfinished batch attempt (then nothing changes).
 */
export const completeAnsweredCall = async (db: Executor, { callId, now }: { callId: string; now: Date }) =>
  db.transaction().execute(async (trx) => {
    const attempt = await trx
      .updateTable('batch_attempts')
      .set({ outcome: 'completed', finished_at: now })
      .where('call_id', '=', callId)
      .where('outcome', '=', 'answered')
      .where('finished_at', 'is', null)
      .returning(['batch_contact_id', 'batch_job_id'])
      .executeTakeFirst()
    if (!attempt) return undefined
    await trx
      .updateTable('batch_contacts')
      .set({ status: 'completed', last_outcome: 'completed', updated_at: now })
      .where('id', '=', attempt.batch_contact_id)
      .where('status', '=', 'in_progress')
      .execute()
    return attempt.batch_job_id
  })

/**
 * A dial whose result was lost with its worker, resolved once its call is over. The dial may have
 * connected, so the contact is not redialled: it fails with the reason (retry-failed can re-queue
 * it on purpose). Conditional on the attempt still being unresolved.
 */
export const resolveLostDial = async (
  db: Executor,
  { attemptId, error, now }: { attemptId: string; error: string; now: Date },
) =>
  db.transaction().execute(async (trx) => {
    const attempt = await trx
      .updateTable('batch_attempts')
      .set({ outcome: 'failed', error, finished_at: now })
      .where('id', '=', attemptId)
      .where('outcome', 'is', null)
      .where('finished_at', 'is', null)
      .returning(['batch_contact_id'])
      .executeTakeFirst()
    if (!attempt) return false
    await trx
      .updateTable('batch_contacts')
      .set({ status: 'failed', last_outcome: 'failed', last_error: error, updated_at: now })
      .where('id', '=', attempt.batch_contact_id)
      .where('status', '=', 'in_progress')
      .execute()
    return true
  })

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

/** running or paused → completed once no contact waits or is in flight. */
export const completeJobIfDone = async (db: Executor, { jobId, now }: { jobId: string; now: Date }) => {
  const result = await db
    .updateTable('batch_jobs')
    .set({ status: 'completed', finished_at: now, updated_at: now })
    .where('id', '=', jobId)
    .where('status', 'in', ['running', 'paused'])
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('batch_contacts')
            .select('id')
            .where('batch_job_id', '=', jobId)
            .where('status', 'in', ['pending', 'in_progress']),
        ),
      ),
    )
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/**
 * running → failed with a reason; waiting contacts fail with it (they keep their attempts, so
 * retry-failed can resume them once the cause is fixed). Calls in flight finish.
 */
export const failJob = async (
  db: Executor,
  { jobId, reason, now }: { jobId: string; reason: string; now: Date },
) =>
  db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('batch_jobs')
      .set({ status: 'failed', failure_reason: reason, finished_at: now, updated_at: now })
      .where('id', '=', jobId)
      .where('status', 'in', ['running', 'paused'])
      .executeTakeFirst()
    if (Number(result.numUpdatedRows) === 0) return false
    await trx
      .updateTable('batch_contacts')
      .set({ status: 'failed', last_error: reason, updated_at: now })
      .where('batch_job_id', '=', jobId)
      .where('status', '=', 'pending')
      .execute()
    return true
  })

/** Adds placeholder names no contact field answered to the job's report (a set, kept sorted). */
export const addUnknownPlaceholders = async (
  db: Executor,
  { jobId, names }: { jobId: string; names: string[] },
) => {
  await db
    .updateTable('batch_jobs')
    .set({
      unknown_placeholders: sql`(select coalesce(jsonb_agg(distinct name order by name), '[]'::jsonb) from (
        select jsonb_array_elements_text(unknown_placeholders) as name
        union select unnest(${names}::text[])
      ) as names)`,
    } as never)
    .where('id', '=', jobId)
    .execute()
}

/** The job the contact of this call belongs to, for calls that close outside the dialer. */
export const findAttemptOfCall = async (db: Executor, callId: string) =>
  db
    .selectFrom('batch_attempts')
    .select([
      'id as attemptId',
      'batch_job_id as jobId',
      'outcome',
      'started_at as startedAt',
      'finished_at as finishedAt',
    ])
    .where('call_id', '=', callId)
    .executeTakeFirst()
