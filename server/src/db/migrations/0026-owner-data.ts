import { type Kysely, sql } from 'kysely'

/**
 * What owners read about their conversations and calls:
 * - an agent names the webhook events it wants (`webhook_events`, every event by default) and may
 *   define an analysis schema (JSON Schema) whose values the model fills after a session;
 * - calls get the post-call analysis conversations have, and both keep the schema's values;
 * - calls are searchable by what was said in them (GET /v1/calls?q=);
 * - a webhook delivery keeps the start of the endpoint's last answer;
 * - the tool calls and handoffs of chat replies are kept, so a conversation shows what its agent did.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('agents')
    .addColumn('webhook_events', 'jsonb', (col) =>
      col
        .notNull()
        .defaultTo(
          sql`'["chat.ended","call.ended","conversation.analyzed","call.analyzed","batch.completed"]'::jsonb`,
        ),
    )
    .addColumn('analysis_schema', 'jsonb')
    .execute()
  await db.schema.alterTable('conversations').addColumn('analysis_data', 'jsonb').execute()
  await db.schema.alterTable('webhook_deliveries').addColumn('last_response', 'text').execute()
  // A deletion asked for in the studio names its member (one through the API names its key).
  await db.schema.alterTable('deletions').addColumn('deleted_by_user_id', 'text').execute()
  await db.schema
    .alterTable('calls')
    .addColumn('analysis_summary', 'text')
    .addColumn('analysis_sentiment', 'text')
    .addColumn('analysis_outcome', 'text')
    .addColumn('analysis_data', 'jsonb')
    .addColumn('analyzed_at', 'timestamptz')
    .execute()
  await sql`create index call_transcript_lines_search_idx on call_transcript_lines
    using gin (to_tsvector('simple', content))`.execute(db)
  await db.schema
    .createTable('chat_tool_calls')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('conversation_id', 'text', (col) =>
      col.notNull().references('conversations.id').onDelete('cascade'),
    )
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('arguments', 'jsonb', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('target_agent_id', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .execute()
  await db.schema
    .createIndex('chat_tool_calls_conversation_idx')
    .on('chat_tool_calls')
    .columns(['conversation_id', 'created_at'])
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('chat_tool_calls').execute()
  await sql`drop index call_transcript_lines_search_idx`.execute(db)
  await db.schema
    .alterTable('calls')
    .dropColumn('analysis_summary')
    .dropColumn('analysis_sentiment')
    .dropColumn('analysis_outcome')
    .dropColumn('analysis_data')
    .dropColumn('analyzed_at')
    .execute()
  await db.schema.alterTable('webhook_deliveries').dropColumn('last_response').execute()
  await db.schema.alterTable('deletions').dropColumn('deleted_by_user_id').execute()
  await db.schema.alterTable('conversations').dropColumn('analysis_data').execute()
  await db.schema.alterTable('agents').dropColumn('webhook_events').dropColumn('analysis_schema').execute()
}
