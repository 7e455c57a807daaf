import { type Kysely, sql } from 'kysely'

/**
 * What happens on a call, in order, for GET /v1/calls/{id}/events: the id is the event's `id:`
 * line, so a client resumes after the last one it saw (Last-Event-ID) on any instance. A call
 * placed on request (POST /v1/calls) may be direction `outbound` without a batch job.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('call_events')
    .addColumn('id', 'bigint', (col) => col.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('call_id', 'text', (col) => col.notNull().references('calls.id').onDelete('cascade'))
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('data', 'jsonb', (col) => col.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('call_events_call').on('call_events').columns(['call_id', 'id']).execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('call_events').execute()
}
