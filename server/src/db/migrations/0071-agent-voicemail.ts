import { type Kysely, sql } from 'kysely'

/**
 * An agent's `voicemail` setting: what an outbound call does when answering-machine detection
 * finds a voicemail box (hang up, or leave a message) or a phone menu (navigate it, or hang up).
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('agents')
    .addColumn('voicemail', 'jsonb', (col) =>
      col.notNull().defaultTo(sql`'{"action":"hang_up","message":null,"onPhoneMenu":"navigate"}'::jsonb`),
    )
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('agents').dropColumn('voicemail').execute()
}
