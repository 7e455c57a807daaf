import { type Kysely, sql } from 'kysely'

/**
 * Knowledge sources (text, a URL, a site, an uploaded file), the pages each was made of (with the
 * ETag and content hash that let a re-fetch skip unchanged ones) and the chunks search reads, each
 * with its text-search vector built under its source's language.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('knowledge_sources')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('title', 'text', (col) => col.notNull())
    .addColumn('url', 'text')
    .addColumn('file_type', 'text')
    .addColumn('language', 'text', (col) => col.notNull())
    .addColumn('refresh', 'text', (col) => col.notNull().defaultTo('off'))
    .addColumn('options', 'jsonb', (col) => col.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('pages_found', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('pages_done', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('chunk_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('bytes', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('error', 'text')
    // The uploaded file or the snippet's text, kept for re-indexing; null for fetched sources.
    .addColumn('upload', 'bytea')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull())
    .addColumn('fetched_at', 'timestamptz')
    .addColumn('next_fetch_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('knowledge_sources_organization_idx')
    .on('knowledge_sources')
    .columns(['organization_id', 'created_at'])
    .execute()
  await sql`create index knowledge_sources_due_idx on knowledge_sources (next_fetch_at) where next_fetch_at is not null`.execute(
    db,
  )

  await db.schema
    .createTable('knowledge_pages')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('source_id', 'text', (col) =>
      col.notNull().references('knowledge_sources.id').onDelete('cascade'),
    )
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('title', 'text')
    .addColumn('etag', 'text')
    .addColumn('content_hash', 'text')
    .addColumn('error', 'text')
    .addColumn('fetched_at', 'timestamptz', (col) => col.notNull())
    .addUniqueConstraint('knowledge_pages_source_url_key', ['source_id', 'url'])
    .execute()

  await db.schema
    .createTable('knowledge_chunks')
    .addColumn('id', 'bigserial', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) => col.notNull())
    .addColumn('source_id', 'text', (col) =>
      col.notNull().references('knowledge_sources.id').onDelete('cascade'),
    )
    .addColumn('page_id', 'text', (col) => col.references('knowledge_pages.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (col) => col.notNull())
    .addColumn('title', 'text', (col) => col.notNull())
    .addColumn('url', 'text')
    .addColumn('page_number', 'integer')
    .addColumn('content', 'text', (col) => col.notNull())
    .addColumn('language', 'text', (col) => col.notNull())
    .addColumn('tsv', sql`tsvector`, (col) => col.notNull())
    .execute()
  await sql`create index knowledge_chunks_tsv_idx on knowledge_chunks using gin (tsv)`.execute(db)
  await db.schema
    .createIndex('knowledge_chunks_source_idx')
    .on('knowledge_chunks')
    .columns(['organization_id', 'source_id'])
    .execute()
  await db.schema.createIndex('knowledge_chunks_page_idx').on('knowledge_chunks').column('page_id').execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('knowledge_chunks').execute()
  await db.schema.dropTable('knowledge_pages').execute()
  await db.schema.dropTable('knowledge_sources').execute()
}
