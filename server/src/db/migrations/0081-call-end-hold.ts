import { type Kysely, sql } from 'kysely'

/**
 * A call a LiveKit webhook closed while its agent worker may still say how it really ended (a
 * voicemail box that hung up first, an opt-out): its `ended` event and `call.ended` webhook wait
 * until the worker's end comes, or until `end_held_until` (calls/close.ts). Null: nothing waits.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('calls').addColumn('end_held_until', 'timestamptz').execute()
  await sql`create index calls_end_held_idx on calls (end_held_until) where end_held_until is not null`.execute(
    db,
  )
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop index calls_end_held_idx`.execute(db)
  await db.schema.alterTable('calls').dropColumn('end_held_until').execute()
}
