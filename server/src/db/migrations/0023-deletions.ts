import type { Kysely } from 'kysely'

/**
 * The log of privacy deletions: which conversation or call went, when, and who asked (the API
 * key). Never what was said: that is what was deleted.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('deletions')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('target_id', 'text', (col) => col.notNull())
    .addColumn('deleted_by_key_id', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .execute()
  await db.schema
    .createIndex('deletions_organization_idx')
    .on('deletions')
    .columns(['organization_id', 'created_at'])
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('deletions').execute()
}
