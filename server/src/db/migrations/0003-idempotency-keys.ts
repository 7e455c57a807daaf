import { type Kysely, sql } from 'kysely'

/** Stripe-style idempotency: one row per (organization, Idempotency-Key), kept 24 hours. */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('idempotency_keys')
    // No foreign key: the scope is claimed before the route learns whether the organization
    // exists (an unknown one answers 404 and the claim is released); rows expire in 24 h anyway.
    .addColumn('organization_id', 'text', (col) => col.notNull())
    .addColumn('key', 'text', (col) => col.notNull().check(sql`char_length(key) between 1 and 255`))
    .addColumn('request_hash', 'text', (col) => col.notNull())
    // Null while the first request is still running.
    .addColumn('response_status', 'integer')
    // The exact bytes first sent (jsonb would reorder keys), so a replay is identical.
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (col) => col.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pkey', ['organization_id', 'key'])
    .execute()
  await db.schema
    .createIndex('idempotency_keys_expires_idx')
    .on('idempotency_keys')
    .column('expires_at')
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('idempotency_keys').execute()
}
