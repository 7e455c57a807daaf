import type { Kysely } from 'kysely'

/**
 * A campaign's retry policy by outcome (shared/batch.ts `ZRetryPolicy`): its own rules as given
 * at its create; null keeps the defaults. The contact list reads each try from batch_attempts.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('batch_jobs').addColumn('retry_policy', 'jsonb').execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('batch_jobs').dropColumn('retry_policy').execute()
}
