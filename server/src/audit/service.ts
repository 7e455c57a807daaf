import type { AuditAction, AuditLog, AuditLogQuery } from '@parley/shared'
import { monotonicUlids } from '../crypto/ids.ts'
import type { Executor } from '../db/index.ts'
import { AppError } from '../http/app-error.ts'
import { decodeCursor, encodeCursor } from '../http/cursor.ts'
import type { AuditBy } from './by.ts'
import * as store from './store.ts'

const newAuditId = monotonicUlids()

export type AuditChange = {
  organizationId: string
  action: AuditAction
  target: { kind: string; id: string | null }
  /** What changed: field names, counts, kinds; never a secret's value. */
  details?: Record<string, unknown>
}

/**
 * Records changes in the audit log with who made them and from which address (`auditByOf(req)`,
 * or `auditBySystem` in a job). Pass the change's own transaction so both commit together.
 */
export const recordAudit = async (db: Executor, { actor, ip }: AuditBy, ...changes: AuditChange[]) => {
  await store.insertAuditEntries(
    db,
    changes.map((change) => ({
      id: newAuditId(),
      organizationId: change.organizationId,
      action: change.action,
      targetKind: change.target.kind,
      targetId: change.target.id,
      actorKind: actor.kind,
      actorId: actor.id,
      ip,
      details: change.details ?? {},
    })),
  )
}

/** GET /v1/audit-log: owners and admins read their organization's entries, newest first. */
export const readAuditLog = async (
  db: Executor,
  { organizationId, role, query }: { organizationId: string; role: string; query: AuditLogQuery },
): Promise<AuditLog> => {
  if (role !== 'owner' && role !== 'admin')
    throw AppError.forbidden('Only owners and admins can read the audit log')
  const rows = await store.listAuditPage(db, {
    organizationId,
    limit: query.limit,
    after: query.cursor ? decodeCursor(query.cursor) : null,
    action: query.action,
    targetId: query.targetId,
    actorId: query.actorId,
    createdFrom: query.createdFrom,
    createdTo: query.createdTo,
  })
  const page = rows.slice(0, query.limit)
  const last = page.at(-1)
  return {
    success: true,
    data: page.map((row) => ({
      id: row.id,
      action: row.action as AuditAction,
      targetKind: row.targetKind,
      targetId: row.targetId,
      actor: { kind: row.actorKind, id: row.actorId },
      ip: row.ip,
      details: row.details,
      createdAt: new Date(row.createdAt).toISOString(),
    })),
    nextCursor:
      rows.length > query.limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
  }
}
