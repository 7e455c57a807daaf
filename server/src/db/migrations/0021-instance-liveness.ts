import type { Kysely } from 'kysely'

/**
 * Instance liveness: every server instance writes a heartbeat, and a chat reply records the
 * instance streaming it, so a reply whose instance died is taken over within seconds instead of
 * after the 10-minute stale-reply bound.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('server_instances')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('last_seen_at', 'timestamptz', (col) => col.notNull())
    .execute()
  await db.schema.alterTable('conversations').addColumn('reply_instance_id', 'text').execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('conversations').dropColumn('reply_instance_id').execute()
  await db.schema.dropTable('server_instances').execute()
}
