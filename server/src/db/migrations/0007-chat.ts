import { type Kysely, sql } from 'kysely'

/**
 * Chat state in PostgreSQL so any instance can serve any call of a session: the answering agent
 * (handoff), the per-reply metering totals, the one-reply-at-a-time claim, the messages, and the
 * default memory store (one summary per organization and user identifier).
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('conversations')
    .addColumn('current_agent_id', 'text')
    .addColumn('input_tokens', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('output_tokens', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('cost_micros', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('reply_started_at', 'timestamptz')
    .execute()
  await db.schema
    .createTable('chat_messages')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('conversation_id', 'text', (col) =>
      col.notNull().references('conversations.id').onDelete('cascade'),
    )
    .addColumn('role', 'text', (col) => col.notNull().check(sql`role in ('user', 'assistant')`))
    .addColumn('content', 'text', (col) => col.notNull())
    .addColumn('token_count', 'integer')
    .addColumn('status', 'text', (col) =>
      col.notNull().defaultTo('complete').check(sql`status in ('complete', 'partial', 'stopped')`),
    )
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('chat_messages_conversation_idx')
    .on('chat_messages')
    .columns(['conversation_id', 'created_at', 'id'])
    .execute()
  await db.schema
    .createTable('memory_summaries')
    .addColumn('organization_id', 'text', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('identity', 'text', (col) => col.notNull())
    .addColumn('summary', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('memory_summaries_pk', ['organization_id', 'identity'])
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('memory_summaries').execute()
  await db.schema.dropTable('chat_messages').execute()
  await db.schema
    .alterTable('conversations')
    .dropColumn('current_agent_id')
    .dropColumn('input_tokens')
    .dropColumn('output_tokens')
    .dropColumn('cost_micros')
    .dropColumn('reply_started_at')
    .execute()
}
