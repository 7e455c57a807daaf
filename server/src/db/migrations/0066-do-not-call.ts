import { type Kysely, sql } from 'kysely'

/**
 * An organization's do-not-call list: one row per number, with how it got there (`api`,
 * `import`, or the call or conversation whose opt_out added it). The primary key is the lookup
 * every dial makes; the second index reads the list newest first.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('do_not_call')
    .addColumn('organization_id', 'text', (col) => col.notNull())
    .addColumn('phone_number', 'text', (col) => col.notNull())
    .addColumn('id', 'text', (col) => col.notNull().unique())
    .addColumn('source_kind', 'text', (col) => col.notNull())
    .addColumn('source', 'text', (col) => col.notNull())
    .addColumn('note', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('do_not_call_pkey', ['organization_id', 'phone_number'])
    .execute()
  await db.schema
    .createIndex('do_not_call_newest_idx')
    .on('do_not_call')
    .columns(['organization_id', 'created_at desc', 'id desc'])
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('do_not_call').execute()
}
