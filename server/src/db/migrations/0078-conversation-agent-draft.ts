import type { Kysely } from 'kysely'

/**
 * A conversation the studio's Try it opened on the agent's unpublished draft: its replies use the
 * draft's settings, read at each reply (a studio session only; never a key's).
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('conversations')
    .addColumn('agent_draft', 'boolean', (col) => col.notNull().defaultTo(false))
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('conversations').dropColumn('agent_draft').execute()
}
