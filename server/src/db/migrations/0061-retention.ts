import type { Kysely } from 'kysely'

/** Days an organization keeps conversations, calls (with transcripts) and exports; null: forever. */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('organizations')
    .addColumn('retention_conversation_days', 'integer')
    .addColumn('retention_call_days', 'integer')
    .addColumn('retention_export_days', 'integer')
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('organizations')
    .dropColumn('retention_export_days')
    .dropColumn('retention_call_days')
    .dropColumn('retention_conversation_days')
    .execute()
}
