import { type Kysely, sql } from 'kysely'

/**
 * Full-text search reads the chunks' GIN index without a pending list: with fastupdate on, new
 * chunks wait in an unordered list that every search scans until a vacuum merges it (up to
 * gin_pending_list_limit, 4 MB: thousands of chunks after a site's crawl). Off, an insert updates
 * the index at once (indexing a source is a little slower; a reply's retrieval stays steady).
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`alter index knowledge_chunks_tsv_idx set (fastupdate = off)`.execute(db)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`alter index knowledge_chunks_tsv_idx reset (fastupdate)`.execute(db)
}
