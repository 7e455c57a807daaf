import { type Kysely, sql } from 'kysely'

/**
 * Full-text search over what was said (GET /v1/conversations?q=): a GIN index on the messages'
 * words, with the `simple` configuration (no stemming: Urdu, Sindhi and English alike), and the
 * keyset of the newest-first list.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`create index chat_messages_search_idx on chat_messages
    using gin (to_tsvector('simple', content))`.execute(db)
  await sql`create index conversations_page_idx on conversations (organization_id, created_at desc, id desc)`.execute(
    db,
  )
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop index conversations_page_idx`.execute(db)
  await sql`drop index chat_messages_search_idx`.execute(db)
}
