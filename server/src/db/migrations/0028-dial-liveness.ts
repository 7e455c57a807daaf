import type { Kysely } from 'kysely'

/**
 * A dial attempt names the instance that claimed it: once that instance's heartbeat stops, its
 * unresolved claims are resolved at once instead of after BATCH_STALE_CLAIM_MS.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('batch_attempts').addColumn('instance_id', 'text').execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('batch_attempts').dropColumn('instance_id').execute()
}
