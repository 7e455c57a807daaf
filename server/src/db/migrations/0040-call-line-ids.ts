import { type Kysely, sql } from 'kysely'

/**
 * The voice worker names each transcript line and tool call it posts: a retried batch (the answer
 * was lost, the request sent again) is stored once. A call's tool calls and handoffs are kept like
 * a chat reply's.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('call_transcript_lines').addColumn('worker_line_id', 'text').execute()
  await sql`create unique index call_transcript_lines_worker_id_idx
    on call_transcript_lines (call_id, worker_line_id) where worker_line_id is not null`.execute(db)
  await db.schema
    .createTable('call_tool_calls')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('call_id', 'text', (col) => col.notNull().references('calls.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (col) => col.notNull())
    .addColumn('worker_call_id', 'text', (col) => col.notNull())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('arguments', 'jsonb', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('target_agent_id', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addUniqueConstraint('call_tool_calls_worker_id_key', ['call_id', 'worker_call_id'])
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('call_tool_calls').execute()
  await sql`drop index call_transcript_lines_worker_id_idx`.execute(db)
  await db.schema.alterTable('call_transcript_lines').dropColumn('worker_line_id').execute()
}
