import { type Kysely, sql } from 'kysely'

/**
 * Credit holds: what replies, calls and dials in flight have reserved of their organization's
 * balance. Admission checks the balance minus the open holds; the real cost settles a hold (the
 * ledger stays the truth) and removes it. A hold past `expires_at` no longer counts: its owner
 * died without settling it.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('credit_holds')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('amount_micros', 'bigint', (col) => col.notNull().check(sql`amount_micros > 0`))
    .addColumn('kind', 'text', (col) => col.notNull().check(sql`kind in ('reply', 'call')`))
    .addColumn('reference', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (col) => col.notNull())
    .execute()
  await db.schema
    .createIndex('credit_holds_organization_idx')
    .on('credit_holds')
    .columns(['organization_id', 'expires_at'])
    .execute()
  await db.schema.createIndex('credit_holds_reference_idx').on('credit_holds').column('reference').execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('credit_holds').execute()
}
