import { type Selectable, sql } from 'kysely'
import type { Database, Executor } from '../db/index.ts'

export type ExportRow = Selectable<Database['exports']>

export const insertExport = (db: Executor, row: Omit<ExportRow, 'rows_done' | 'bytes' | 'chunks'>) =>
  db.insertInto('exports').values(row).returningAll().executeTakeFirstOrThrow()

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

/** A run starts from nothing: a run cut off by a crash leaves pieces the next one replaces. */
export const startRun = async (db: Executor, id: string) => {
  await db.deleteFrom('export_chunks').where('export_id', '=', id).execute()
  await db
    .updateTable('exports')
    .set({ status: 'running', rows_done: 0, bytes: 0, chunks: 0, error: null })
    .where('id', '=', id)
    .execute()
}

/** One piece of the file and the progress it brings, together. */
export const appendChunk = (
  db: Executor,
  { id, seq, data, rowsDone }: { id: string; seq: number; data: string; rowsDone: number },
) =>
  db.transaction().execute(async (tx) => {
    await tx.insertInto('export_chunks').values({ export_id: id, seq, data }).execute()
    await tx
      .updateTable('exports')
      .set({ rows_done: rowsDone, bytes: sql<number>`bytes + ${Buffer.byteLength(data)}`, chunks: seq + 1 })
      .where('id', '=', id)
      .execute()
  })

export const finishRun = (
  db: Executor,
  {
    id,
    status,
    error,
    rowsDone,
  }: { id: string; status: 'completed' | 'failed'; error?: string; rowsDone: number },
) =>
  db
    .updateTable('exports')
    .set({
      status,
      error: error ?? null,
      rows_done: rowsDone,
      ...(status === 'completed' ? { rows_total: rowsDone } : {}),
      completed_at: new Date(),
    })
    .where('id', '=', id)
    .execute()

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
