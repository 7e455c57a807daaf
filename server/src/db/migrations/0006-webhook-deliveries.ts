import { type Kysely, sql } from 'kysely'

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('agent_id', 'text', (col) => col.notNull())
    .addColumn('event', 'text', (col) => col.notNull())
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('payload', 'jsonb', (col) => col.notNull())
    .addColumn('status', 'text', (col) =>
      col.notNull().defaultTo('pending').check(sql`status in ('pending', 'succeeded', 'failed')`),
    )
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('last_attempt_at', 'timestamptz')
    .addColumn('next_attempt_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('webhook_deliveries_agent_idx')
    .on('webhook_deliveries')
    .columns(['agent_id', 'created_at'])
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('webhook_deliveries').execute()
}
