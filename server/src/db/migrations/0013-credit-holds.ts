import { type Kysely, sql } from 'kysely'

/**
 * Credit holds and instance liveness. A reply, a call and a dial reserve their expected cost
 * before they start: `organizations.held_micros` is the sum of the open holds, so the check
 * "balance minus holds covers this one" and the reservation are one conditional UPDATE, atomic on
 * PostgreSQL and PGlite alike. Each hold is a row too, tied to the instance that took it, so the
 * holds (and reply slots, and dial claims) of an instance whose heartbeat stopped are found and
 * released within a heartbeat, and an expiry bounds any hold whatever happens.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('organizations')
    .addColumn('held_micros', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute()
  await sql`alter table organizations add constraint organizations_held_check check (held_micros >= 0)`.execute(
    db,
  )
  await db.schema
    .createTable('server_instances')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('started_at', 'timestamptz', (col) => col.notNull())
    .addColumn('heartbeat_at', 'timestamptz', (col) => col.notNull())
    .execute()
  await db.schema
    .createTable('credit_holds')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('kind', 'text', (col) => col.notNull().check(sql`kind in ('chat_reply', 'call', 'dial')`))
    .addColumn('reference', 'text', (col) => col.notNull())
    .addColumn('amount_micros', 'bigint', (col) => col.notNull().check(sql`amount_micros > 0`))
    .addColumn('instance_id', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addColumn('expires_at', 'timestamptz', (col) => col.notNull())
    .execute()
  await db.schema.createIndex('credit_holds_expiry_idx').on('credit_holds').column('expires_at').execute()
  await db.schema.createIndex('credit_holds_instance_idx').on('credit_holds').column('instance_id').execute()
  await db.schema
    .createIndex('credit_holds_reference_idx')
    .on('credit_holds')
    .columns(['reference', 'kind'])
    .execute()
  await db.schema.alterTable('conversations').addColumn('reply_instance_id', 'text').execute()
  await db.schema.alterTable('conversations').addColumn('reply_partial_text', 'text').execute()
  await db.schema.alterTable('batch_attempts').addColumn('instance_id', 'text').execute()
  // The liveness sweep reads only the replies in progress and the attempts still unresolved.
  await sql`create index conversations_replying_idx on conversations (reply_instance_id)
    where reply_started_at is not null`.execute(db)
  await sql`create index batch_attempts_open_idx on batch_attempts (instance_id)
    where finished_at is null`.execute(db)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop index batch_attempts_open_idx`.execute(db)
  await sql`drop index conversations_replying_idx`.execute(db)
  await db.schema.alterTable('batch_attempts').dropColumn('instance_id').execute()
  await db.schema.alterTable('conversations').dropColumn('reply_partial_text').execute()
  await db.schema.alterTable('conversations').dropColumn('reply_instance_id').execute()
  await db.schema.dropTable('credit_holds').execute()
  await db.schema.dropTable('server_instances').execute()
  await sql`alter table organizations drop constraint organizations_held_check`.execute(db)
  await db.schema.alterTable('organizations').dropColumn('held_micros').execute()
}
