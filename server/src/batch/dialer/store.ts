import type { CallingWindow } from '@parley/shared'
import { sql } from 'kysely'
import { monotonicUlids } from '../../crypto/ids.ts'
import type { Executor } from '../../db/index.ts'

/** Attempt ids claimed together sort in claim order (ids made in one millisecond too). */
const newAttemptId = monotonicUlids()

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
 * The job as read under its lock, the contacts this round claimed of it, and whether it is
 * drained: nothing in flight and nothing waiting, so it may be complete.
 */
export type ClaimRound = { job: DialerJob | undefined; claimed: ClaimedContact[]; isDrained: boolean }

type ClaimInput = {
  jobId: string
  now: Date
  scanFactor: number
  /** Picks among the due contacts of a job with a calling window (without one: the first due). */
  choose: (candidates: ClaimCandidate[], freeSlots: number, job: DialerJob) => ClaimChoice
  /** The instance claiming: its heartbeat vouches for the claims while it dials. */
  instanceId: string
}

/** Contact columns and attempt rows of a claim, written by one data-modifying statement. */
const claimedRows = sql`
  claimed_rows as (
    select claimed.*, row_number() over (order by claimed.position) as n from claimed
  ),
  attempt as (
    insert into batch_attempts (id, batch_contact_id, batch_job_id, attempt_number, started_at, instance_id)
    select (ids.attempt_ids)[claimed_rows.n], claimed_rows.id, claimed_rows.batch_job_id,
      claimed_rows.attempts, claimed_rows.updated_at, ids.instance_id
    from claimed_rows cross join ids
    returning id, batch_contact_id
  )
`

const claimedColumns = sql`
  claimed_rows.id as "contactId", attempt.id as "attemptId", claimed_rows.attempts as "attemptNumber",
  claimed_rows.phone, claimed_rows.name, claimed_rows.fields
`

/**
 * Claims up to the job's free slots in one transaction. The job row is locked FOR UPDATE first, so
 * claims of one job are serialized across every worker: the in-flight count read next cannot
 * change until this transaction commits, and in_progress contacts never exceed the limit. A claim
 * is an attempt row plus the contact moved to in_progress: nothing is dialled before it commits.
 * Contacts outside their calling window get a later next_attempt_at and keep no slot. The locked
 * read is the whole job the dialer needs, so a round reads the job once (claims only when running).
 *
 * A job without a calling window claims in one statement after the lock (count, due contacts,
 * contacts and attempt rows); with one, the due contacts are read first and chosen by `choose`.
 */
export const claimRound = async (
  db: Executor,
  { jobId, now, scanFactor, choose, instanceId }: ClaimInput,
): Promise<ClaimRound> =>
  db.transaction().execute(async (trx) => {
    const locked = await trx
      .selectFrom('batch_jobs')
      .select([...jobColumns, 'concurrent_call_limit as concurrentCallLimit'])
      .where('id', '=', jobId)
      .forUpdate()
      .executeTakeFirst()
    if (!locked) return { job: undefined, claimed: [], isDrained: false }
    const { concurrentCallLimit, ...job } = locked as DialerJob & { concurrentCallLimit: number }
    if (job.status !== 'running') return { job, claimed: [], isDrained: false }
    const attemptIds = Array.from({ length: concurrentCallLimit }, () => newAttemptId())
    return job.callingWindow
      ? claimChosen(trx, { job, concurrentCallLimit, attemptIds, now, instanceId, scanFactor, choose })
      : claimFirstDue(trx, { job, concurrentCallLimit, attemptIds, now, instanceId })
  })

type Claiming = {
  job: DialerJob
  concurrentCallLimit: number
  attemptIds: string[]
  now: Date
  instanceId: string
}

/**
 * The in-flight count, the first due contacts for the free slots, their claim and attempt rows:
 * one statement, run after the job's lock, so its snapshot (READ COMMITTED: taken when the
 * statement starts) includes every claim committed before this one took the lock.
 */
const claimFirstDue = async (
  trx: Executor,
  { job, concurrentCallLimit, attemptIds, now, instanceId }: Claiming,
): Promise<ClaimRound> => {
  const { rows } = await sql<
    ClaimedContact & { inFlight: number; isWaiting: boolean; contactId: string | null }
  >`
    with flight as (
      select count(*)::int as n from batch_contacts where batch_job_id = ${job.id} and status = 'in_progress'
    ),
    due as (
      select id from batch_contacts
      where batch_job_id = ${job.id} and status = 'pending' and next_attempt_at <= ${now}
      order by next_attempt_at, position
      limit greatest(${concurrentCallLimit}::int - (select n from flight), 0)
    ),
    claimed as (
      update batch_contacts set status = 'in_progress', attempts = attempts + 1, updated_at = ${now}
      where id in (select id from due) and status = 'pending'
      returning id, batch_job_id, position, attempts, phone, name, fields, updated_at
    ),
    ids as (select ${attemptIds}::text[] as attempt_ids, ${instanceId}::text as instance_id),
    ${claimedRows}
    select flight.n as "inFlight",
      exists (select 1 from batch_contacts where batch_job_id = ${job.id} and status = 'pending') as "isWaiting",
      ${claimedColumns}
    from flight
      left join claimed_rows on true
      left join attempt on attempt.batch_contact_id = claimed_rows.id
    order by claimed_rows.n
  `.execute(trx)
  const claimed = rows.flatMap(({ inFlight: _, isWaiting: __, ...row }) =>
    row.contactId ? [row as ClaimedContact] : [],
  )
  const first = rows[0]
  return { job, claimed, isDrained: claimed.length === 0 && first?.inFlight === 0 && !first.isWaiting }
}

/** The claim of a job with a calling window: due contacts read, chosen in their zones, then claimed. */
const claimChosen = async (
  trx: Executor,
  {
    job,
    concurrentCallLimit,
    attemptIds,
    now,
    instanceId,
    scanFactor,
    choose,
  }: Claiming & Pick<ClaimInput, 'scanFactor' | 'choose'>,
): Promise<ClaimRound> => {
  // Read after the lock, in a statement of its own, so the count includes every claim committed
  // before this one took the lock (READ COMMITTED gives each statement a fresh snapshot).
  const { rows } = await sql<{ inFlight: number; id: string | null; timeZone: string | null }>`
    with flight as (
      select count(*)::int as n from batch_contacts where batch_job_id = ${job.id} and status = 'in_progress'
    )
    select flight.n as "inFlight", due.id, due.time_zone as "timeZone"
    from flight left join lateral (
      select id, time_zone, next_attempt_at, position from batch_contacts
      where batch_job_id = ${job.id} and status = 'pending' and next_attempt_at <= ${now}
      order by next_attempt_at, position
      limit greatest(${concurrentCallLimit}::int - flight.n, 0) * ${scanFactor}::int
    ) due on true
    order by due.next_attempt_at, due.position
  `.execute(trx)
  const inFlight = rows[0]?.inFlight ?? 0
  const freeSlots = concurrentCallLimit - inFlight
  const candidates = rows.flatMap((row) => (row.id ? [{ id: row.id, timeZone: row.timeZone }] : []))
  // Nothing due and nothing in flight: completeJobIfDone looks at the contacts waiting for later.
  const isDrained = inFlight === 0 && candidates.length === 0
  if (freeSlots <= 0 || candidates.length === 0) return { job, claimed: [], isDrained }
  const { claim, defer } = choose(candidates, freeSlots, job)
  if (defer.length > 0)
    await sql`
      update batch_contacts set next_attempt_at = later.until, updated_at = ${now}
      from unnest(${defer.map((d) => d.id)}::text[], ${defer.map((d) => d.until.toISOString())}::timestamptz[])
        as later(id, until)
      where batch_contacts.id = later.id
    `.execute(trx)
  const chosen = claim.slice(0, freeSlots)
  if (chosen.length === 0) return { job, claimed: [], isDrained: false }
  const { rows: claimed } = await sql<ClaimedContact>`
    with claimed as (
      update batch_contacts set status = 'in_progress', attempts = attempts + 1, updated_at = ${now}
      where id = any(${chosen}::text[]) and status = 'pending'
      returning id, batch_job_id, position, attempts, phone, name, fields, updated_at
    ),
    ids as (select ${attemptIds}::text[] as attempt_ids, ${instanceId}::text as instance_id),
    ${claimedRows}
    select ${claimedColumns}
    from claimed_rows join attempt on attempt.batch_contact_id = claimed_rows.id
    order by claimed_rows.n
  `.execute(trx)
  return { job, claimed, isDrained: false }
}

/** A claim round's contacts alone (see claimRound). */
export const claimContacts = async (db: Executor, input: ClaimInput): Promise<ClaimedContact[]> =>
  (await claimRound(db, input)).claimed

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
