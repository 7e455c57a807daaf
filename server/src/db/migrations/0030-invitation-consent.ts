import { type Kysely, sql } from 'kysely'

/**
 * Invitations the invitee accepts: an invitation expires (`expires_at`; those made before this get
 * seven days from their creation) and may be declined (`declined_at`). Only one open invitation
 * per organization and email: neither accepted nor declined (an expired one is renewed in place).
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('invitations')
    .addColumn('expires_at', 'timestamptz')
    .addColumn('declined_at', 'timestamptz')
    .execute()
  await sql`update invitations set expires_at = created_at + interval '7 days'`.execute(db)
  await db.schema
    .alterTable('invitations')
    .alterColumn('expires_at', (col) => col.setNotNull())
    .execute()
  await sql`drop index invitations_pending_idx`.execute(db)
  await sql`create unique index invitations_open_idx on invitations (organization_id, email)
    where accepted_at is null and declined_at is null`.execute(db)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop index invitations_open_idx`.execute(db)
  await sql`delete from invitations where declined_at is not null`.execute(db)
  await sql`create unique index invitations_pending_idx on invitations (organization_id, email)
    where accepted_at is null`.execute(db)
  await db.schema.alterTable('invitations').dropColumn('expires_at').dropColumn('declined_at').execute()
}
