import { type Kysely, sql } from 'kysely'

/**
 * Visitor identity that cannot be claimed. Each organization gets an identity secret (sealed at
 * rest; made when first asked for) with which its own server signs a visitor's `user_identifier`
 * (`user_hash`). A conversation keeps the identity its memory is filed under (`memory_identity`:
 * `user:<identifier>` when the identifier was trusted, `visitor:<hash of the browser's id>` when
 * not) and whether the identifier was proven (`user_verified`). Memories filed before this were
 * filed under the bare identifier: they move to `user:<identifier>`.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('organizations')
    .addColumn('identity_secret', 'text')
    .addColumn('identity_secret_created_at', 'timestamptz')
    .execute()
  await db.schema
    .alterTable('conversations')
    .addColumn('memory_identity', 'text')
    .addColumn('user_verified', 'boolean', (col) => col.notNull().defaultTo(false))
    .execute()
  await sql`update memory_summaries set identity = 'user:' || identity`.execute(db)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`delete from memory_summaries where identity not like 'user:%'`.execute(db)
  await sql`update memory_summaries set identity = substr(identity, 6)`.execute(db)
  await db.schema
    .alterTable('conversations')
    .dropColumn('memory_identity')
    .dropColumn('user_verified')
    .execute()
  await db.schema
    .alterTable('organizations')
    .dropColumn('identity_secret')
    .dropColumn('identity_secret_created_at')
    .execute()
}
