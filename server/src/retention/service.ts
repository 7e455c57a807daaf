import type { Retention, UpdateRetention } from '@parley/shared'
import type { Kysely } from 'kysely'
import { type AuditBy, auditBySystem, recordAudit } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import type { Database } from '../db/index.ts'
import { AppError } from '../http/app-error.ts'
import type { StudioActor } from '../http/types.ts'
import { roleIn } from '../orgs/index.ts'
import * as store from './store.ts'

export const RETENTION_JOB = 'retention.sweep'
const DAY_MS = 24 * 60 * 60 * 1000
/** Rows per statement: small enough that no batch holds its row locks for long. */
export const RETENTION_BATCH = 500

export const getRetention = async (ctx: AppContext, actor: StudioActor, organizationId: string) => {
  await roleIn(ctx, actor, organizationId)
  const row = await store.findRetention(ctx.db, organizationId)
  if (!row) throw AppError.notFound('organization')
  return row satisfies Retention
}

/** Owners and admins set how long records are kept; the change is in the audit log. */
export const updateRetention = async (
  ctx: AppContext,
  actor: StudioActor,
  { organizationId, update, by }: { organizationId: string; update: UpdateRetention; by: AuditBy },
) => {
  const role = await roleIn(ctx, actor, organizationId)
  if (role === 'member')
    throw AppError.forbidden('Only owners and admins can change how long records are kept')
  return ctx.db.transaction().execute(async (tx) => {
    const row = await store.updateRetention(tx, organizationId, update)
    if (!row) throw AppError.notFound('organization')
    await recordAudit(tx, by, {
      organizationId,
      action: 'organization.retention_updated',
      target: { kind: 'organization', id: organizationId },
      details: { ...update },
    })
    return row satisfies Retention
  })
}

type Kind = 'conversations' | 'calls' | 'exports'
const batchOf: Record<Kind, typeof store.deleteConversationBatch> = {
  conversations: store.deleteConversationBatch,
  calls: store.deleteCallBatch,
  exports: store.deleteExportBatch,
}

/** Deletes one kind's rows older than the limit, a batch per transaction with its audit entry. */
const sweepKind = async (
  db: Kysely<Database>,
  {
    organizationId,
    kind,
    days,
    now,
    batch,
  }: { organizationId: string; kind: Kind; days: number; now: Date; batch: number },
) => {
  const before = new Date(now.getTime() - days * DAY_MS)
  let total = 0
  for (;;) {
    const deleted = await db.transaction().execute(async (tx) => {
      const count = await batchOf[kind](tx, { organizationId, before, limit: batch })
      if (count > 0)
        await recordAudit(tx, auditBySystem, {
          organizationId,
          action: 'retention.deleted',
          target: { kind, id: null },
          details: { count, olderThan: before.toISOString(), days },
        })
      return count
    })
    total += deleted
    if (deleted < batch) return total
  }
}

/**
 * The daily job: for every organization with a limit, deletes conversations, ended calls (with
 * their transcripts) and finished exports older than it. Answers what went, by organization.
 */
export const sweepRetention = async (
  ctx: AppContext,
  { now = new Date(), batch = RETENTION_BATCH }: { now?: Date; batch?: number } = {},
) => {
  const organizations = await store.listLimitedOrganizations(ctx.db)
  const report: Array<{ organizationId: string } & Record<Kind, number>> = []
  for (const organization of organizations) {
    const limits: Array<[Kind, number | null]> = [
      ['conversations', organization.conversationDays],
      ['calls', organization.callDays],
      ['exports', organization.exportDays],
    ]
    const counts = { organizationId: organization.id, conversations: 0, calls: 0, exports: 0 }
    for (const [kind, days] of limits)
      if (days !== null)
        counts[kind] = await sweepKind(ctx.db, { organizationId: organization.id, kind, days, now, batch })
    if (counts.conversations + counts.calls + counts.exports > 0) {
      ctx.logger.info(counts, 'retention: old records deleted')
      report.push(counts)
    }
  }
  return report
}

/** The job's handler, and its one deployment-wide daily record (ROLE worker or all). */
export const registerRetentionJob = (ctx: AppContext) =>
  ctx.jobs.define(RETENTION_JOB, async () => void (await sweepRetention(ctx)), { concurrency: 1 })

export const scheduleRetentionJob = (ctx: AppContext) => ctx.jobs.every(DAY_MS, RETENTION_JOB)
