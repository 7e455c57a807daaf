import { sql } from 'kysely'
import type { Executor } from '../db/index.ts'
import { type BatchJobRow, toJobRow } from './store.ts'

/** pending, scheduled or running → paused: no new claims (the claim round only claims for running). */
export const pauseJob = async (db: Executor, { id, now }: { id: string; now: Date }) => {
  const row = await db
    .updateTable('batch_jobs')
    .set({ status: 'paused', updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', ['pending', 'scheduled', 'running'])
    .returningAll()
    .executeTakeFirst()
  return row ? toJobRow(row) : undefined
}

/** paused → running, or back to scheduled when its start is still ahead. */
export const resumeJob = async (db: Executor, { id, now }: { id: string; now: Date }) => {
  const row = await db
    .updateTable('batch_jobs')
    .set({
      status: sql`case when scheduled_start_time > ${now} then 'scheduled' else 'running' end`,
      started_at: sql`case when scheduled_start_time > ${now} then started_at else coalesce(started_at, ${now}) end`,
      updated_at: now,
    } as never)
    .where('id', '=', id)
    .where('status', '=', 'paused')
    .returningAll()
    .executeTakeFirst()
  return row ? toJobRow(row) : undefined
}

const RETRYABLE_JOB_STATUSES = ['running', 'paused', 'completed', 'failed'] as const

/**
 * Failed contacts with attempts left wait again, in one transaction with the job row locked (so a
 * worker cannot complete the job between the two). A completed or failed job that got contacts
 * back runs again, its failure reason cleared. Undefined when the job's status allows no retry.
 */
export const requeueFailedContacts = async (db: Executor, { id, now }: { id: string; now: Date }) =>
  db.transaction().execute(async (trx) => {
    const job = await trx
      .selectFrom('batch_jobs')
      .select(['status', 'max_attempts'])
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst()
    if (!job || !(RETRYABLE_JOB_STATUSES as readonly string[]).includes(job.status)) return undefined
    const result = await trx
      .updateTable('batch_contacts')
      .set({ status: 'pending', next_attempt_at: now, updated_at: now })
      .where('batch_job_id', '=', id)
      .where('status', '=', 'failed')
      .where('attempts', '<', job.max_attempts)
      .executeTakeFirst()
    const requeued = Number(result.numUpdatedRows)
    const isFinished = job.status === 'completed' || job.status === 'failed'
    const row = await trx
      .updateTable('batch_jobs')
      .set(
        requeued > 0 && isFinished
          ? { status: 'running', failure_reason: null, finished_at: null, updated_at: now }
          : { updated_at: now },
      )
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return { job: toJobRow(row) as BatchJobRow, requeued }
  })
