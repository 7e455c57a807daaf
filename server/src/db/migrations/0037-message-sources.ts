import type { Kysely } from 'kysely'

/** The knowledge sources an assistant reply was given (title, URL, snippet), shown with it in history. */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('chat_messages').addColumn('sources', 'jsonb').execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('chat_messages').dropColumn('sources').execute()
}
