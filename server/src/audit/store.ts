import { sql } from 'kysely'
import { atExactTime, exactTime } from '../db/exact-time.ts'
import type { Executor } from '../db/index.ts'

export type AuditRow = {
  id: string
  action: string
  targetKind: string
  targetId: string | null
  actorKind: 'member' | 'key' | 'operator' | 'system'
  actorId: string | null
  ip: string | null
  details: Record<string, unknown>
  createdAt: string
}

export const insertAuditEntries = async (
  db: Executor,
  entries: Array<{
    id: string
    organizationId: string
    action: string
    targetKind: string
    targetId: string | null
    actorKind: AuditRow['actorKind']
    actorId: string | null
    ip: string | null
    details: Record<string, unknown>
  }>,
) => {
  if (entries.length === 0) return
  await db
    .insertInto('audit_log')
    .values(
      entries.map((entry) => ({
        id: entry.id,
        organization_id: entry.organizationId,
        action: entry.action,
        target_kind: entry.targetKind,
        target_id: entry.targetId,
        actor_kind: entry.actorKind,
        actor_id: entry.actorId,
        ip: entry.ip,
        details: JSON.stringify(entry.details),
      })),
    )
    .execute()
}

export type AuditFilters = {
  organizationId: string
  limit: number
  after: { createdAt: string; id: string } | null
  action?: string | undefined
  targetId?: string | undefined
  actorId?: string | undefined
  createdFrom?: string | undefined
  createdTo?: string | undefined
}

/** A newest-first keyset page (limit + 1 rows: the extra one says whether another page follows). */
export const listAuditPage = (db: Executor, filters: AuditFilters): Promise<AuditRow[]> => {
  let query = db
    .selectFrom('audit_log')
    .select([
      'id',
      'action',
      'target_kind as targetKind',
      'target_id as targetId',
      'actor_kind as actorKind',
      'actor_id as actorId',
      'ip',
      'details',
      exactTime('created_at').as('createdAt'),
    ])
    .where('organization_id', '=', filters.organizationId)
  if (filters.action) query = query.where('action', '=', filters.action)
  if (filters.targetId) query = query.where('target_id', '=', filters.targetId)
  if (filters.actorId) query = query.where('actor_id', '=', filters.actorId)
  if (filters.createdFrom) query = query.where('created_at', '>=', new Date(filters.createdFrom))
  if (filters.createdTo) query = query.where('created_at', '<', new Date(filters.createdTo))
  if (filters.after)
    query = query.where(
      sql<boolean>`(created_at, id) < (${atExactTime(filters.after.createdAt)}, ${filters.after.id})`,
    )
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filters.limit + 1)
    .execute() as Promise<AuditRow[]>
}
