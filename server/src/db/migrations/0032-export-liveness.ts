import { type Kysely, sql } from 'kysely'

/**
 * A running export names the instance writing it and counts its runs: once that instance's
 * heartbeat stops, the export is run again at once (or failed after three runs) instead of
 * waiting out the job lock's five minutes.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('exports')
    .addColumn('instance_id', 'text')
    .addColumn('runs', 'integer', (col) => col.notNull().defaultTo(0))
    .execute()
  await db.schema
    .createIndex('exports_running_idx')
    .on('exports')
    .column('instance_id')
    .where(sql.ref('status'), '=', 'running')
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropIndex('exports_running_idx').execute()
  await db.schema.alterTable('exports').dropColumn('runs').dropColumn('instance_id').execute()
}
