import { type Kysely, sql } from 'kysely'

/**
 * Calls a person makes to one of the organization's numbers: direction `inbound`, the caller in
 * `phone_number` (as a dialled call's callee), the number they called in `called_number`, and the
 * caller's SIP participant identity (LiveKit names it; a cold transfer REFERs it).
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`alter table calls drop constraint if exists calls_direction_check`.execute(db)
  await sql`alter table calls add constraint calls_direction_check
    check (direction in ('web', 'outbound', 'inbound'))`.execute(db)
  await db.schema
    .alterTable('calls')
    .addColumn('called_number', 'text')
    .addColumn('sip_identity', 'text')
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('calls').dropColumn('called_number').dropColumn('sip_identity').execute()
  await sql`alter table calls drop constraint if exists calls_direction_check`.execute(db)
  await sql`alter table calls add constraint calls_direction_check
    check (direction in ('web', 'outbound'))`.execute(db)
}
