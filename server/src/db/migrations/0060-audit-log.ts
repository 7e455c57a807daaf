import { type Kysely, sql } from 'kysely'

/**
 * Who changed what in an organization: one row per change, written by the change's own
 * transaction where it has one. Read newest first by organization (the keyset index).
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) => col.notNull())
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('target_kind', 'text', (col) => col.notNull())
    .addColumn('target_id', 'text')
    .addColumn('actor_kind', 'text', (col) => col.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('ip', 'text')
    .addColumn('details', 'jsonb', (col) => col.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('audit_log_organization_idx')
    .on('audit_log')
    .columns(['organization_id', 'created_at desc', 'id desc'])
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('audit_log').execute()
}
