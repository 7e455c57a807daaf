import { type Kysely, sql } from 'kysely'

/**
 * Every token paid for. Usage that already happened is charged whole, so a balance may go below
 * zero (the organization is then refused new work until topped up): the checks that kept the
 * balance and the ledger's running balance at zero or above go. A reply's hold records what a
 * crash would leave unpaid: the instance streaming it, the message its checkpoints write, the
 * model and prompt tokens of the round in progress, what the finished rounds cost, and where the
 * round's text starts in the message; the instance that finds the streamer dead settles it.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    do $$
    declare found record;
    begin
      for found in
        select c.conname, t.relname from pg_constraint c join pg_class t on t.oid = c.conrelid
        where c.contype = 'c' and (
          (t.relname = 'organizations' and pg_get_constraintdef(c.oid) like '%credit_balance_micros >= 0%')
          or (t.relname = 'credit_ledger' and pg_get_constraintdef(c.oid) like '%balance_after_micros >= 0%'))
      loop
        execute format('alter table %I drop constraint %I', found.relname, found.conname);
      end loop;
    end $$`.execute(db)
  await db.schema
    .alterTable('credit_holds')
    .addColumn('instance_id', 'text')
    .addColumn('message_id', 'text')
    .addColumn('model', 'text')
    .addColumn('prompt_tokens', 'integer')
    .addColumn('used_micros', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('text_offset', 'integer', (col) => col.notNull().defaultTo(0))
    .execute()
  await sql`create index credit_holds_instance_idx on credit_holds (instance_id) where message_id is not null`.execute(
    db,
  )
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop index credit_holds_instance_idx`.execute(db)
  await db.schema
    .alterTable('credit_holds')
    .dropColumn('instance_id')
    .dropColumn('message_id')
    .dropColumn('model')
    .dropColumn('prompt_tokens')
    .dropColumn('used_micros')
    .dropColumn('text_offset')
    .execute()
}
