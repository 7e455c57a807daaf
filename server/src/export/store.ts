import { type ExpressionBuilder, type Kysely, type Selectable, sql } from 'kysely'
import type { Database, Executor } from '../db/index.ts'

export type ExportRow = Selectable<Database['exports']>

/** One run of an export: the instance writing it and which run it is. Its writes hold only while it is the export's. */
export type Run = { id: string; instanceId: string; runs: number }

export const insertExport = (
  db: Executor,
  row: Omit<ExportRow, 'rows_done' | 'bytes' | 'chunks' | 'instance_id' | 'runs'>,
) => db.insertInto('exports').values(row).returningAll().executeTakeFirstOrThrow()

export const findExport = (db: Executor, { organizationId, id }: { organizationId: string; id: string }) =>
  db
    .selectFrom('exports')
    .selectAll()
    .where('id', '=', id)
    .where('organization_id', '=', organizationId)
    .where('expires_at', '>', new Date())
    .executeTakeFirst()

export const findExportById = (db: Executor, id: string) =>
  db.selectFrom('exports').selectAll().where('id', '=', id).executeTakeFirst()

/** Running on no instance, or on one that has not beaten since `aliveAfter`. */
const isOrphaned = (eb: ExpressionBuilder<Database, 'exports'>, aliveAfter: Date) =>
  eb.or([
    eb('exports.instance_id', 'is', null),
    eb.not(
      eb.exists(
        eb
          .selectFrom('server_instances')
          .select('server_instances.id')
          .whereRef('server_instances.id', '=', 'exports.instance_id')
          .where('server_instances.last_seen_at', '>=', aliveAfter),
      ),
    ),
  ])

/**
 * Takes the export for a run on `instanceId`: one queued, or running on an instance that stopped
 * beating. Counts the run and starts it from nothing (progress reset, the pieces an earlier run
 * left dropped), in one transaction. Undefined when it is not to run here: finished, or running on
 * a live instance (a job run twice, or picked up again after its lock expired, changes nothing).
 */
export const claimRun = (
  db: Kysely<Database>,
  { id, instanceId, aliveAfter }: { id: string; instanceId: string; aliveAfter: Date },
) =>
  db.transaction().execute(async (tx) => {
    const row = await tx
      .updateTable('exports')
      .set({
        status: 'running',
        instance_id: instanceId,
        runs: sql<number>`runs + 1`,
        rows_done: 0,
        bytes: 0,
        chunks: 0,
        error: null,
      })
      .where('id', '=', id)
      .where((eb) =>
        eb.or([
          eb('status', '=', 'queued'),
          eb.and([eb('status', '=', 'running'), isOrphaned(eb, aliveAfter)]),
        ]),
      )
      .returningAll()
      .executeTakeFirst()
    if (row) await tx.deleteFrom('export_chunks').where('export_id', '=', id).execute()
    return row
  })

/** Running exports whose instance stopped beating, oldest first. */
export const listOrphanedRuns = (db: Executor, { aliveAfter, limit }: { aliveAfter: Date; limit: number }) =>
  db
    .selectFrom('exports')
    .select('id')
    .where('status', '=', 'running')
    .where((eb) => isOrphaned(eb, aliveAfter))
    .orderBy('created_at')
    .limit(limit)
    .execute()

/** Thrown when a run finds the export taken by another (its instance was thought dead). */
export class RunTakenOver extends Error {
  override name = 'RunTakenOver'
}

/** One piece of the file and the progress it brings, together; only while the run is the export's. */
export const appendChunk = (
  db: Kysely<Database>,
  { run, seq, data, rowsDone }: { run: Run; seq: number; data: string; rowsDone: number },
) =>
  db.transaction().execute(async (tx) => {
    const updated = await tx
      .updateTable('exports')
      .set({ rows_done: rowsDone, bytes: sql<number>`bytes + ${Buffer.byteLength(data)}`, chunks: seq + 1 })
      .where('id', '=', run.id)
      .where('status', '=', 'running')
      .where('instance_id', '=', run.instanceId)
      .where('runs', '=', run.runs)
      .executeTakeFirst()
    if (Number(updated.numUpdatedRows) === 0) throw new RunTakenOver()
    await tx.insertInto('export_chunks').values({ export_id: run.id, seq, data }).execute()
  })

/** Ends the run as completed or failed; false when the export is no longer this run's. */
export const finishRun = async (
  db: Executor,
  {
    run,
    status,
    error,
    rowsDone,
  }: { run: Run; status: 'completed' | 'failed'; error?: string; rowsDone: number },
) => {
  const updated = await db
    .updateTable('exports')
    .set({
      status,
      error: error ?? null,
      rows_done: rowsDone,
      ...(status === 'completed' ? { rows_total: rowsDone } : {}),
      completed_at: new Date(),
    })
    .where('id', '=', run.id)
    .where('status', '=', 'running')
    .where('instance_id', '=', run.instanceId)
    .where('runs', '=', run.runs)
    .executeTakeFirst()
  return Number(updated.numUpdatedRows) > 0
}

export const readChunk = async (db: Executor, { id, seq }: { id: string; seq: number }) =>
  (
    await db
      .selectFrom('export_chunks')
      .select('data')
      .where('export_id', '=', id)
      .where('seq', '=', seq)
      .executeTakeFirst()
  )?.data

/** Exports whose day is over go, with their files (chunks cascade). */
export const deleteExpired = (db: Executor, now: Date) =>
  db.deleteFrom('exports').where('expires_at', '<=', now).execute()

/** Exports of the organization still queued or running. */
export const countUnfinished = async (db: Executor, organizationId: string) =>
  Number(
    (
      await db
        .selectFrom('exports')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('organization_id', '=', organizationId)
        .where('status', 'in', ['queued', 'running'])
        .executeTakeFirstOrThrow()
    ).count,
  )
