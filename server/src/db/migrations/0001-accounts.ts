import { type Kysely, sql } from 'kysely'

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('email', 'text', (col) => col.notNull().unique())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('password_hash', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute()

  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('tier', 'text', (col) =>
      col.notNull().defaultTo('free').check(sql`tier in ('free', 'pro', 'enterprise')`),
    )
    .addColumn('rate_limit_per_minute', 'integer', (col) => col.check(sql`rate_limit_per_minute > 0`))
    .addColumn('credit_balance_micros', 'bigint', (col) =>
      col.notNull().defaultTo(0).check(sql`credit_balance_micros >= 0`),
    )
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute()

  await db.schema
    .createTable('memberships')
    .addColumn('organization_id', 'text', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (col) => col.notNull().check(sql`role in ('owner', 'admin', 'member')`))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('memberships_pkey', ['organization_id', 'user_id'])
    .execute()
  await db.schema.createIndex('memberships_user_idx').on('memberships').column('user_id').execute()

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('role', 'text', (col) => col.notNull().check(sql`role in ('owner', 'admin', 'member')`))
    .addColumn('invited_by', 'text', (col) => col.notNull().references('users.id'))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('accepted_at', 'timestamptz')
    .execute()
  await sql`create unique index invitations_pending_idx on invitations (organization_id, email) where accepted_at is null`.execute(
    db,
  )
  await db.schema.createIndex('invitations_email_idx').on('invitations').column('email').execute()

  await db.schema
    .createTable('credit_ledger')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) => col.notNull().references('organizations.id'))
    .addColumn('amount_micros', 'bigint', (col) => col.notNull().check(sql`amount_micros <> 0`))
    .addColumn('balance_after_micros', 'bigint', (col) => col.notNull().check(sql`balance_after_micros >= 0`))
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('reason', 'text', (col) => col.notNull())
    .addColumn('reference', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`clock_timestamp()`))
    .execute()
  await db.schema
    .createIndex('credit_ledger_org_idx')
    .on('credit_ledger')
    .columns(['organization_id', 'created_at'])
    .execute()
  // The ledger is append-only: corrections are new rows, never edits.
  await sql`
    create function credit_ledger_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'credit_ledger is append-only';
    end;
    $$`.execute(db)
  await sql`
    create trigger credit_ledger_no_update_or_delete
    before update or delete on credit_ledger
    for each row execute function credit_ledger_append_only()`.execute(db)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('credit_ledger').execute()
  await sql`drop function if exists credit_ledger_append_only()`.execute(db)
  await db.schema.dropTable('invitations').execute()
  await db.schema.dropTable('memberships').execute()
  await db.schema.dropTable('organizations').execute()
  await db.schema.dropTable('users').execute()
}
