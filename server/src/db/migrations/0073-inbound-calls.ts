import { type Kysely, sql } from 'kysely'

/**
 * Calls a person makes to one of the organization's numbers: direction `inbound`, the caller in
 * `phone_number` (as a dialled call's callee), the number they called in `called_number`.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`alter table calls drop constraint if exists calls_direction_check`.execute(db)
  await sql`alter table calls add constraint calls_direction_check
    check (direction in ('web', 'outbound', 'inbound'))`.execute(db)
  await db.schema.alterTable('calls').addColumn('called_number', 'text').execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('calls').dropColumn('called_number').execute()
  await sql`alter table calls drop constraint if exists calls_direction_check`.execute(db)
  await sql`alter table calls add constraint calls_direction_check
    check (direction in ('web', 'outbound'))`.execute(db)
}
