import type {
  BatchContactStatus,
  BatchContactTry,
  BatchCounters,
  BatchJobStatus,
  CallingWindow,
  CallOutcome,
  RetryPolicy,
} from '@parley/shared'
import { type Selectable, sql } from 'kysely'
import type { Database, Executor } from '../db/index.ts'
import { countRows, newestFirstPage } from '../db/page-store.ts'

export type BatchJobRow = {
  id: string
  organizationId: string
  phoneNumberId: string
  agentId: string
  keyId: string | null
  name: string
  description: string | null
  status: BatchJobStatus
  concurrentCallLimit: number
  maxAttempts: number
  scheduledStartTime: Date | null
  timezone: string
  callingWindow: CallingWindow | null
  /** Its own retry rules as given; null: the defaults. */
  retryPolicy: RetryPolicy | null
  totalContacts: number
  estimatedCostMicros: number
  failureReason: string | null
  unknownPlaceholders: string[]
  createdAt: Date
  startedAt: Date | null
  finishedAt: Date | null
  updatedAt: Date
}

export type BatchContactRow = {
  id: string
  batchJobId: string
  organizationId: string
  position: number
  phone: string
  name: string | null
  fields: Record<string, unknown>
  timeZone: string | null
  status: BatchContactStatus
  attempts: number
  nextAttemptAt: Date
  lastError: string | null
  lastOutcome: string | null
  callId: string | null
  updatedAt: Date
}

/** A contact as the create path hands it over: already validated, deduplicated and numbered. */
export type NewBatchContact = Pick<
  BatchContactRow,
  'id' | 'position' | 'phone' | 'name' | 'fields' | 'timeZone'
>

export type NewBatchJob = Omit<
  BatchJobRow,
  'failureReason' | 'unknownPlaceholders' | 'createdAt' | 'startedAt' | 'finishedAt' | 'updatedAt'
>

export const toJobRow = (row: Selectable<Database['batch_jobs']>): BatchJobRow => ({
  id: row.id,
  organizationId: row.organization_id,
  phoneNumberId: row.phone_number_id,
  agentId: row.agent_id,
  keyId: row.key_id,
  name: row.name,
  description: row.description,
  status: row.status,
  concurrentCallLimit: row.concurrent_call_limit,
  maxAttempts: row.max_attempts,
  scheduledStartTime: row.scheduled_start_time,
  timezone: row.timezone,
  callingWindow: row.calling_window,
  retryPolicy: row.retry_policy,
  totalContacts: row.total_contacts,
  estimatedCostMicros: row.estimated_cost_micros,
  failureReason: row.failure_reason,
  unknownPlaceholders: row.unknown_placeholders,
  createdAt: row.created_at,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  updatedAt: row.updated_at,
})

export const toContactRow = (row: Selectable<Database['batch_contacts']>): BatchContactRow => ({
  id: row.id,
  batchJobId: row.batch_job_id,
  organizationId: row.organization_id,
  position: row.position,
  phone: row.phone,
  name: row.name,
  fields: row.fields,
  timeZone: row.time_zone,
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  lastError: row.last_error,
  lastOutcome: row.last_outcome,
  callId: row.call_id,
  updatedAt: row.updated_at,
})

export const insertJob = async (db: Executor, job: NewBatchJob): Promise<BatchJobRow> => {
  const row = await db
    .insertInto('batch_jobs')
    .values({
      id: job.id,
      organization_id: job.organizationId,
      phone_number_id: job.phoneNumberId,
      agent_id: job.agentId,
      key_id: job.keyId,
      name: job.name,
      description: job.description,
      status: job.status,
      concurrent_call_limit: job.concurrentCallLimit,
      max_attempts: job.maxAttempts,
      scheduled_start_time: job.scheduledStartTime,
      timezone: job.timezone,
      calling_window: job.callingWindow ? JSON.stringify(job.callingWindow) : null,
      retry_policy: job.retryPolicy ? JSON.stringify(job.retryPolicy) : null,
      total_contacts: job.totalContacts,
      estimated_cost_micros: job.estimatedCostMicros,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  return toJobRow(row)
}

/** Rows per INSERT: column arrays through unnest keep one statement to a handful of parameters. */
const CONTACTS_PER_INSERT = 5000

/**
 * Inserts the contacts of a new job. Each chunk is one statement whose parameters are column
 * arrays expanded by unnest: 10,000 rows cost two round trips instead of 10,000, and the statement
 * stays far below PostgreSQL's 65,535-parameter limit.
 */
export const insertContacts = async (
  db: Executor,
  {
    batchJobId,
    organizationId,
    contacts,
  }: { batchJobId: string; organizationId: string; contacts: NewBatchContact[] },
) => {
  for (let start = 0; start < contacts.length; start += CONTACTS_PER_INSERT) {
    const chunk = contacts.slice(start, start + CONTACTS_PER_INSERT)
    await sql`
      insert into batch_contacts (id, batch_job_id, organization_id, position, phone, name, fields, time_zone)
      select c.id, ${batchJobId}, ${organizationId}, c.position, c.phone, c.name, c.fields::jsonb, c.time_zone
      from unnest(
        ${chunk.map((c) => c.id)}::text[],
        ${chunk.map((c) => c.position)}::int[],
        ${chunk.map((c) => c.phone)}::text[],
        ${chunk.map((c) => c.name)}::text[],
        ${chunk.map((c) => JSON.stringify(c.fields))}::text[],
        ${chunk.map((c) => c.timeZone)}::text[]
      ) as c(id, position, phone, name, fields, time_zone)
    `.execute(db)
  }
}

export const findJob = async (
  db: Executor,
  { organizationId, id }: { organizationId: string; id: string },
) => {
  const row = await db
    .selectFrom('batch_jobs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst()
  return row ? toJobRow(row) : undefined
}

/** One contact of an organization, or undefined. */
export const findContact = async (
  db: Executor,
  { organizationId, id }: { organizationId: string; id: string },
): Promise<BatchContactRow | undefined> => {
  const row = await db
    .selectFrom('batch_contacts')
    .selectAll()
    .where('id', '=', id)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst()
  return row ? toContactRow(row) : undefined
}

/** For workers, which act for every organization. */
export const findJobById = async (db: Executor, id: string) => {
  const row = await db.selectFrom('batch_jobs').selectAll().where('id', '=', id).executeTakeFirst()
  return row ? toJobRow(row) : undefined
}

export const listJobs = async (
  db: Executor,
  query: { organizationId: string; status?: BatchJobStatus; offset: number; limit: number },
) => {
  const base = db
    .selectFrom('batch_jobs')
    .where('organization_id', '=', query.organizationId)
    .$if(query.status !== undefined, (qb) => qb.where('status', '=', query.status as BatchJobStatus))
  const [rows, total] = await Promise.all([
    base.selectAll().$call(newestFirstPage(query)).execute(),
    countRows(base),
  ])
  return { jobs: rows.map(toJobRow), total }
}

export const emptyCounters = (): BatchCounters => ({
  total: 0,
  pending: 0,
  in_progress: 0,
  completed: 0,
  failed: 0,
  cancelled: 0,
})

/** Contact counts by status for each job (jobs without contacts get zeros). */
export const countContactsByJob = async (db: Executor, batchJobIds: string[]) => {
  const counters = new Map<string, BatchCounters>(batchJobIds.map((id) => [id, emptyCounters()]))
  if (batchJobIds.length === 0) return counters
  const rows = await db
    .selectFrom('batch_contacts')
    .select(['batch_job_id', 'status', sql<number>`count(*)::int`.as('count')])
    .where('batch_job_id', 'in', batchJobIds)
    .groupBy(['batch_job_id', 'status'])
    .execute()
  for (const row of rows) {
    const counter = counters.get(row.batch_job_id)
    if (!counter) continue
    counter[row.status] = row.count
    counter.total += row.count
  }
  return counters
}

export type OutcomeCounts = Partial<Record<CallOutcome, number>>

/** Each job's finished tries by outcome (the campaign's breakdown), one grouped statement. */
export const countOutcomesByJob = async (db: Executor, batchJobIds: string[]) => {
  const counts = new Map<string, OutcomeCounts>(batchJobIds.map((id) => [id, {}]))
  if (batchJobIds.length === 0) return counts
  const rows = await db
    .selectFrom('batch_attempts')
    .select(['batch_job_id', 'outcome', sql<number>`count(*)::int`.as('count')])
    .where('batch_job_id', 'in', batchJobIds)
    .where('outcome', 'is not', null)
    .where('outcome', '<>', 'answered')
    .groupBy(['batch_job_id', 'outcome'])
    .execute()
  for (const row of rows) {
    const count = counts.get(row.batch_job_id)
    if (count && row.outcome && row.outcome !== 'answered') count[row.outcome] = row.count
  }
  return counts
}

export const countOutcomes = async (db: Executor, batchJobId: string): Promise<OutcomeCounts> =>
  (await countOutcomesByJob(db, [batchJobId])).get(batchJobId) ?? {}

export const countContacts = async (db: Executor, batchJobId: string): Promise<BatchCounters> =>
  (await countContactsByJob(db, [batchJobId])).get(batchJobId) ?? emptyCounters()

export const listContacts = async (
  db: Executor,
  query: { batchJobId: string; status?: BatchContactStatus; offset: number; limit: number },
) => {
  const base = db
    .selectFrom('batch_contacts')
    .where('batch_job_id', '=', query.batchJobId)
    .$if(query.status !== undefined, (qb) => qb.where('status', '=', query.status as BatchContactStatus))
  const [rows, total] = await Promise.all([
    base.selectAll().orderBy('position').offset(query.offset).limit(query.limit).execute(),
    countRows(base),
  ])
  return { contacts: rows.map(toContactRow), total }
}

/** The tries of these contacts, oldest first, grouped by contact (one statement for a page). */
export const listTriesOfContacts = async (db: Executor, contactIds: string[]) => {
  const tries = new Map<string, BatchContactTry[]>()
  if (contactIds.length === 0) return tries
  const rows = await db
    .selectFrom('batch_attempts')
    .select([
      'batch_contact_id as contactId',
      'attempt_number as attemptNumber',
      'outcome',
      'sip_status as sipStatus',
      'call_id as callId',
      'started_at as startedAt',
      'finished_at as finishedAt',
    ])
    .where('batch_contact_id', 'in', contactIds)
    .orderBy('batch_contact_id')
    .orderBy('attempt_number')
    .execute()
  for (const { contactId, startedAt, finishedAt, ...row } of rows) {
    const list = tries.get(contactId) ?? []
    list.push({
      ...row,
      startedAt: new Date(startedAt).toISOString(),
      finishedAt: finishedAt ? new Date(finishedAt).toISOString() : null,
    })
    tries.set(contactId, list)
  }
  return tries
}

/**
 * Moves a job to `status` only from one of `from`, so two writers (an API cancel and a worker
 * completing the job) cannot both win. Answers the updated job, or undefined when it was not in
 * one of `from`.
 */
export const transitionJob = async (
  db: Executor,
  {
    id,
    from,
    to,
    failureReason,
  }: { id: string; from: BatchJobStatus[]; to: BatchJobStatus; failureReason?: string | null },
) => {
  const isTerminal = to === 'completed' || to === 'failed' || to === 'cancelled'
  const row = await db
    .updateTable('batch_jobs')
    .set({
      status: to,
      updated_at: sql`now()`,
      ...(to === 'running' ? { started_at: sql`coalesce(started_at, now())` } : {}),
      ...(isTerminal ? { finished_at: sql`now()` } : {}),
      ...(failureReason !== undefined ? { failure_reason: failureReason } : {}),
    } as never)
    .where('id', '=', id)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst()
  return row ? toJobRow(row) : undefined
}

/** Cancels the job's contacts that wait for a dial; contacts in flight finish their call. */
export const cancelWaitingContacts = async (db: Executor, batchJobId: string) => {
  const result = await db
    .updateTable('batch_contacts')
    .set({ status: 'cancelled', updated_at: sql`now()` })
    .where('batch_job_id', '=', batchJobId)
    .where('status', '=', 'pending')
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}
