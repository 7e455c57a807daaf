import { type Kysely, sql } from 'kysely'

/**
 * One conversation across text and voice: a call may continue a chat conversation, and what is
 * said in it lands in that conversation's messages, each message marked with its channel and,
 * for spoken ones, the call it was said in.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('calls')
    .addColumn('conversation_id', 'text', (col) => col.references('conversations.id').onDelete('set null'))
    .execute()
  await db.schema.createIndex('calls_conversation_idx').on('calls').column('conversation_id').execute()
  await db.schema
    .alterTable('chat_messages')
    .addColumn('channel', 'text', (col) =>
      col.notNull().defaultTo('text').check(sql`channel in ('text', 'voice')`),
    )
    .addColumn('call_id', 'text', (col) => col.references('calls.id').onDelete('set null'))
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('chat_messages').dropColumn('call_id').dropColumn('channel').execute()
  await db.schema.dropIndex('calls_conversation_idx').execute()
  await db.schema.alterTable('calls').dropColumn('conversation_id').execute()
}
