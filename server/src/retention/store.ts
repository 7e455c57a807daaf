import { sql } from 'kysely'
import type { Executor } from '../db/index.ts'

export type RetentionRow = {
  conversationDays: number | null
  callDays: number | null
  exportDays: number | null
}

const columns = [
  'retention_conversation_days as conversationDays',
  'retention_call_days as callDays',
  'retention_export_days as exportDays',
] as const

export const findRetention = (db: Executor, organizationId: string): Promise<RetentionRow | undefined> =>
  db.selectFrom('organizations').select(columns).where('id', '=', organizationId).executeTakeFirst()

export const updateRetention = (db: Executor, organizationId: string, update: Partial<RetentionRow>) =>
  db
    .updateTable('organizations')
    .set({
      ...(update.conversationDays !== undefined
        ? { retention_conversation_days: update.conversationDays }
        : {}),
      ...(update.callDays !== undefined ? { retention_call_days: update.callDays } : {}),
      ...(update.exportDays !== undefined ? { retention_export_days: update.exportDays } : {}),
    })
    .where('id', '=', organizationId)
    .returning(columns)
    .executeTakeFirst()

/** The organizations that keep anything for a limited time. */
export const listLimitedOrganizations = (db: Executor): Promise<Array<RetentionRow & { id: string }>> =>
  db
    .selectFrom('organizations')
    .select(['id', ...columns])
    .where((eb) =>
      eb.or([
        eb('retention_conversation_days', 'is not', null),
        eb('retention_call_days', 'is not', null),
        eb('retention_export_days', 'is not', null),
      ]),
    )
    .orderBy('id')
    .execute()

// Each batch is one short statement on at most `limit` rows picked by the organization-and-time
// indexes, so no lock is held for long; the caller loops until a batch comes back short.

export const deleteConversationBatch = async (
  db: Executor,
  { organizationId, before, limit }: { organizationId: string; before: Date; limit: number },
) => {
  const { rows } = await sql<{ id: string }>`
    delete from conversations where id in (
      select id from conversations where organization_id = ${organizationId} and created_at < ${before}
      order by created_at limit ${limit} for update skip locked)
    returning id`.execute(db)
  return rows.length
}

/** Ended calls only; their spoken messages go with them (as DELETE /v1/calls/{id} does). */
export const deleteCallBatch = async (
  db: Executor,
  { organizationId, before, limit }: { organizationId: string; before: Date; limit: number },
) => {
  const { rows: picked } = await sql<{ id: string }>`
    select id from calls where organization_id = ${organizationId} and started_at < ${before}
      and status <> 'active'
    order by started_at limit ${limit} for update skip locked`.execute(db)
  const ids = picked.map((row) => row.id)
  if (ids.length === 0) return 0
  await db.deleteFrom('chat_messages').where('call_id', 'in', ids).execute()
  await db.deleteFrom('calls').where('id', 'in', ids).execute()
  return ids.length
}

/** Finished exports (their pieces cascade); a running one is left to finish. */
export const deleteExportBatch = async (
  db: Executor,
  { organizationId, before, limit }: { organizationId: string; before: Date; limit: number },
) => {
  const { rows } = await sql<{ id: string }>`
    delete from exports where id in (
      select id from exports where organization_id = ${organizationId} and created_at < ${before}
        and status in ('completed', 'failed')
      order by created_at limit ${limit} for update skip locked)
    returning id`.execute(db)
  return rows.length
}
