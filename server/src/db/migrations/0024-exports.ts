import type { Kysely } from 'kysely'

/**
 * Data exports (POST /api/export): the request and its progress, and the file in pieces of a few
 * hundred KiB (`export_chunks`), so neither writing nor downloading ever holds the whole file.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('exports')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('requested_by', 'text', (col) => col.notNull())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('format', 'text', (col) => col.notNull())
    .addColumn('from_at', 'timestamptz')
    .addColumn('to_at', 'timestamptz')
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('rows_total', 'integer', (col) => col.notNull())
    .addColumn('rows_done', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('bytes', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('chunks', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addColumn('completed_at', 'timestamptz')
    .addColumn('expires_at', 'timestamptz', (col) => col.notNull())
    .execute()
  await db.schema
    .createIndex('exports_organization_idx')
    .on('exports')
    .columns(['organization_id', 'created_at'])
    .execute()
  await db.schema
    .createTable('export_chunks')
    .addColumn('export_id', 'text', (col) => col.notNull().references('exports.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (col) => col.notNull())
    // Text, not bytea: the files are UTF-8 text, and pg would send bytea as hex (twice the size).
    .addColumn('data', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('export_chunks_pk', ['export_id', 'seq'])
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('export_chunks').execute()
  await db.schema.dropTable('exports').execute()
}
