import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { CreateExport, Export } from '@parley/shared'
import { stringify } from 'csv-stringify/sync'
import type { Response } from 'express'
import { type AuditBy, recordAudit } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { newUlid } from '../crypto/ids.ts'
import { AppError } from '../http/app-error.ts'
import type { StudioActor } from '../http/types.ts'
import { aliveAfter } from '../instances/liveness.ts'
import { type After, type ExportRecord, type Scope, sources } from './sources.ts'
import * as store from './store.ts'

export const EXPORT_JOB = 'export.run'
/** Records read per page: the only records an export holds at once. */
const PAGE_ROWS = 500
/** A piece of the file is stored once this many characters are waiting. */
const CHUNK_CHARS = 256 * 1024
const EXPORT_TTL_MS = 24 * 60 * 60 * 1000
/** Exports one organization may have queued or running at once. */
const UNFINISHED_PER_ORGANIZATION = 3
/** Runs an export gets: one whose instance died this many times (it may be what kills them) fails. */
export const MAX_EXPORT_RUNS = 3

/**
 * A cell a spreadsheet would run as a formula (=, +, -, @, or a tab or carriage return that some
 * read past) is prefixed with an apostrophe, which shows it as the text it is (OWASP "CSV
 * injection"). Numbers are written as numbers and keep their sign.
 */
export const escapeFormula = (value: string) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value)

const toCsv = (rows: unknown[][]) => stringify(rows, { cast: { string: escapeFormula, boolean: String } })

const toNdjson = (records: ExportRecord[]) => records.map((record) => `${JSON.stringify(record)}\n`).join('')

const fileName = (row: store.ExportRow) =>
  `parley-${row.kind.replace('_', '-')}-${row.created_at.toISOString().slice(0, 10)}-${row.id}.${row.format}`

const present = (row: store.ExportRow): Export => ({
  id: row.id,
  kind: row.kind,
  format: row.format,
  from: row.from_at?.toISOString() ?? null,
  to: row.to_at?.toISOString() ?? null,
  status: row.status,
  rowsTotal: row.rows_total,
  rowsDone: row.rows_done,
  bytes: Number(row.bytes),
  error: row.error,
  createdAt: row.created_at.toISOString(),
  completedAt: row.completed_at?.toISOString() ?? null,
  expiresAt: row.expires_at.toISOString(),
  downloadUrl: row.status === 'completed' ? `/api/export/${row.id}/download` : null,
})

/** The ledger is money: owners and admins read it; every member reads conversations, calls and contacts. */
const checkRole = (actor: StudioActor, kind: CreateExport['kind']) => {
  if (kind === 'ledger' && actor.role === 'member')
    throw AppError.forbidden('Only owners and admins can export the credit ledger')
  if (kind === 'audit_log' && actor.role === 'member')
    throw AppError.forbidden('Only owners and admins can export the audit log')
}

/**
 * Starts an export: refused up front when it would have more records than EXPORT_MAX_ROWS (with
 * the count it would have), bounded at `to` or now so its rows do not grow while it runs, then a
 * job writes it. Answers the export as it is queued.
 */
export const createExport = async (ctx: AppContext, actor: StudioActor, input: CreateExport, by: AuditBy) => {
  checkRole(actor, input.kind)
  const now = new Date()
  const from = input.from ? new Date(input.from) : null
  const requestedTo = input.to ? new Date(input.to) : null
  if (from && requestedTo && from >= requestedTo) throw AppError.badRequest('to: must be later than from')
  const to = requestedTo && requestedTo < now ? requestedTo : now
  await store.deleteExpired(ctx.db, now)
  if ((await store.countUnfinished(ctx.db, actor.organizationId)) >= UNFINISHED_PER_ORGANIZATION)
    throw new AppError({
      status: 429,
      code: 'rate_limited',
      message: `${UNFINISHED_PER_ORGANIZATION} exports are already running; wait for one to finish`,
      headers: { 'Retry-After': '30' },
    })
  const scope: Scope = { organizationId: actor.organizationId, from, to }
  const rows = await sources[input.kind].count(ctx.db, scope)
  if (rows > ctx.config.exportMaxRows)
    throw new AppError({
      status: 413,
      code: 'export_too_large',
      message: `This export would have ${rows.toLocaleString('en-US')} rows; the limit is ${ctx.config.exportMaxRows.toLocaleString('en-US')}. Narrow it with from and to.`,
    })
  const row = await ctx.db.transaction().execute(async (tx) => {
    const inserted = await store.insertExport(tx, {
      id: newUlid(),
      organization_id: actor.organizationId,
      requested_by: actor.userId,
      kind: input.kind,
      format: input.format,
      from_at: from,
      to_at: to,
      status: 'queued',
      rows_total: rows,
      error: null,
      created_at: now,
      completed_at: null,
      expires_at: new Date(now.getTime() + EXPORT_TTL_MS),
    })
    await recordAudit(tx, by, {
      organizationId: actor.organizationId,
      action: 'export.created',
      target: { kind: 'export', id: inserted.id },
      details: { kind: input.kind, format: input.format, rows },
    })
    return inserted
  })
  await ctx.jobs.now(EXPORT_JOB, { exportId: row.id })
  return present(row)
}

/** Another organization's export (or an expired one) answers 404. */
const requireExport = async (ctx: AppContext, actor: StudioActor, id: string) => {
  const row = await store.findExport(ctx.db, { organizationId: actor.organizationId, id })
  if (!row) throw AppError.notFound('export')
  checkRole(actor, row.kind)
  return row
}

export const getExport = async (ctx: AppContext, actor: StudioActor, id: string) =>
  present(await requireExport(ctx, actor, id))

/**
 * Writes the export: pages of records (keyset, oldest first), formatted, gathered into pieces of
 * CHUNK_CHARS, each stored with the progress it brings. Memory holds one page and one piece. The
 * run first takes the export (store.claimRun): a queued one, or one whose instance stopped beating,
 * which is then written again from the start; every write of the run holds only while the export
 * is still its own, so a run wrongly thought dead stops at its next piece.
 */
export const runExport = async (ctx: AppContext, exportId: string) => {
  const row = await store.claimRun(ctx.db, {
    id: exportId,
    instanceId: ctx.instanceId,
    aliveAfter: aliveAfter(ctx),
  })
  if (!row) return
  const run: store.Run = { id: exportId, instanceId: ctx.instanceId, runs: row.runs }
  if (run.runs > MAX_EXPORT_RUNS) {
    await store.finishRun(ctx.db, {
      run,
      status: 'failed',
      error: `The export was cut off ${MAX_EXPORT_RUNS} times by a server stopping; ask for it again`,
      rowsDone: 0,
    })
    return
  }
  const source = sources[row.kind]
  const scope: Scope = { organizationId: row.organization_id, from: row.from_at, to: row.to_at }
  let pending: string[] = row.format === 'csv' ? [toCsv([[...source.columns]])] : []
  let pendingChars = pending[0]?.length ?? 0
  let seq = 0
  let rowsDone = 0
  const flush = async () => {
    if (pending.length === 0) return
    const data = pending.join('')
    pending = []
    pendingChars = 0
    await store.appendChunk(ctx.db, { run, seq, data, rowsDone })
    seq += 1
  }
  try {
    let after: After = null
    for (;;) {
      const { records, last } = await source.page(ctx.db, { scope, after, limit: PAGE_ROWS })
      if (records.length === 0) break
      const text = row.format === 'csv' ? toCsv(records.map(source.csvCells)) : toNdjson(records)
      pending.push(text)
      pendingChars += text.length
      rowsDone += records.length
      if (pendingChars >= CHUNK_CHARS) await flush()
      if (records.length < PAGE_ROWS) break
      after = last
    }
    await flush()
    await store.finishRun(ctx.db, { run, status: 'completed', rowsDone })
  } catch (error) {
    if (error instanceof store.RunTakenOver) {
      ctx.logger.warn({ exportId }, 'export taken over by another instance; this run stops')
      return
    }
    ctx.logger.error({ err: error, exportId }, 'export failed')
    await store.finishRun(ctx.db, {
      run,
      status: 'failed',
      error: 'The export could not be written; ask for it again',
      rowsDone,
    })
  }
}

/**
 * Streams a completed export piece by piece, each read when the client has taken the one before
 * (the pipeline's back-pressure): memory holds one piece, whatever the file's size.
 */
export const downloadExport = async (ctx: AppContext, actor: StudioActor, id: string, res: Response) => {
  const row = await requireExport(ctx, actor, id)
  if (row.status !== 'completed')
    throw AppError.conflict(
      row.status === 'failed'
        ? `This export failed: ${row.error ?? 'ask for it again'}`
        : `This export is ${row.status} (${row.rows_done} of ${row.rows_total} rows); download it once completed`,
      'export_not_ready',
    )
  res.status(200)
  res.setHeader('content-type', row.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson')
  res.setHeader('content-disposition', `attachment; filename="${fileName(row)}"`)
  res.setHeader('content-length', String(row.bytes))
  res.setHeader('cache-control', 'private, no-store')
  const pieces = async function* () {
    for (let seq = 0; seq < row.chunks; seq++) {
      const data = await store.readChunk(ctx.db, { id: row.id, seq })
      if (!data) throw new Error(`export ${row.id} lost piece ${seq}`)
      yield data
    }
  }
  try {
    await pipeline(Readable.from(pieces()), res)
  } catch (error) {
    // A client that went away ends the stream; anything else is logged (the headers are gone).
    if (!res.destroyed) ctx.logger.error({ err: error, exportId: row.id }, 'export download failed')
    res.destroy()
  }
}

export const registerExportJobs = (ctx: AppContext) => {
  ctx.jobs.define<{ exportId: string }>(EXPORT_JOB, ({ exportId }) => runExport(ctx, exportId))
}

const ORPHANS_PER_SWEEP = 100
/** An export handed to the queue is not handed again for this long (its job starts within a poll). */
const REQUEUE_AFTER_MS = 30_000

/**
 * Every heartbeat, exports running on an instance that stopped beating go back to the queue, so
 * a dead instance's export is written again (or failed, after MAX_EXPORT_RUNS) within a heartbeat
 * of its death being known, not when its job's lock expires five minutes later. Workers only
 * (they run the jobs). Returns the function that stops it.
 */
export const startExportRecovery = (ctx: AppContext) => {
  const handedAt = new Map<string, number>()
  let isSweeping = false
  const sweep = async () => {
    const now = Date.now()
    for (const [id, at] of handedAt) if (now - at > REQUEUE_AFTER_MS) handedAt.delete(id)
    const orphans = await store.listOrphanedRuns(ctx.db, {
      aliveAfter: aliveAfter(ctx),
      limit: ORPHANS_PER_SWEEP,
    })
    for (const { id } of orphans) {
      if (handedAt.has(id)) continue
      handedAt.set(id, now)
      await ctx.jobs.now(EXPORT_JOB, { exportId: id })
    }
  }
  const timer = setInterval(() => {
    if (isSweeping) return
    isSweeping = true
    sweep()
      .catch((error: unknown) =>
        ctx.logger.warn({ err: error }, 'could not look for exports of dead instances'),
      )
      .finally(() => {
        isSweeping = false
      })
  }, ctx.config.instanceHeartbeatMs)
  timer.unref()
  return () => clearInterval(timer)
}
