import type { Kysely } from 'kysely'

/**
 * An agent may name a fallback model: when its model's provider fails before the reply's first
 * chunk, the reply is retried once on it. The message records the model that answered and, after
 * a switch, the model it fell back from.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('agents').addColumn('fallback_model', 'text').execute()
  await db.schema
    .alterTable('chat_messages')
    .addColumn('model', 'text')
    .addColumn('fallback_from', 'text')
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('chat_messages').dropColumn('model').dropColumn('fallback_from').execute()
  await db.schema.alterTable('agents').dropColumn('fallback_model').execute()
}
