import { type Kysely, sql } from 'kysely'

/** The knowledge sources an agent answers from (ids of its organization's knowledge_sources). */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('agents')
    .addColumn('knowledge_source_ids', 'jsonb', (col) => col.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('agents').dropColumn('knowledge_source_ids').execute()
}
