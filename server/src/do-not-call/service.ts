import { setImmediate } from 'node:timers/promises'
import type {
  AddDoNotCall,
  DoNotCallEntry,
  DoNotCallImported,
  DoNotCallSourceKind,
  ListDoNotCallQuery,
} from '@parley/shared'
import { doNotCallLimits } from '@parley/shared'
import { type AuditBy, recordAudit } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { monotonicUlids } from '../crypto/ids.ts'
import type { Executor } from '../db/index.ts'
import { AppError } from '../http/app-error.ts'
import { columnIndex } from '../http/csv.ts'
import { pageWindow, paginationOf } from '../http/pagination.ts'
import { checkE164 } from '../phone-numbers/index.ts'
import * as store from './store.ts'

const nextId = monotonicUlids()

const isE164 = (text: string) => checkE164(text) !== null

/** How many invalid rows an import answer lists (the count covers them all). */
const INVALID_ROWS_LISTED = 100

export const toEntry = (row: store.DoNotCallRow): DoNotCallEntry => ({
  phoneNumber: row.phoneNumber,
  source: row.source,
  sourceKind: row.sourceKind,
  note: row.note,
  createdAt: row.createdAt.toISOString(),
})

const auditTarget = (phoneNumber: string) => ({ kind: 'do_not_call', id: phoneNumber })

const requireValidNumber = (phoneNumber: string) => {
  if (!isE164(phoneNumber))
    throw AppError.badRequest(`${phoneNumber} is not a valid phone number`, 'invalid_phone_number')
}

export const listDoNotCall = async (ctx: AppContext, organizationId: string, query: ListDoNotCallQuery) => {
  const { entries, total } = await store.listEntries(ctx.db, {
    organizationId,
    phoneNumber: query.phoneNumber,
    ...pageWindow(query),
  })
  return { entries: entries.map(toEntry), pagination: paginationOf(query, total) }
}

/**
 * Adds one number (idempotent: a listed number keeps its entry and answers alreadyListed). The
 * entry and its audit line commit together.
 */
export const addToList = async (
  ctx: AppContext,
  { organizationId, input, by }: { organizationId: string; input: AddDoNotCall; by: AuditBy },
) => {
  requireValidNumber(input.phoneNumber)
  return addNumber(ctx.db, {
    by,
    organizationId,
    phoneNumber: input.phoneNumber,
    sourceKind: 'api',
    source: 'api',
    note: input.note ? input.note : null,
  })
}

const addNumber = async (
  db: Executor,
  {
    by,
    ...entry
  }: {
    by: AuditBy
    organizationId: string
    phoneNumber: string
    sourceKind: DoNotCallSourceKind
    source: string
    note: string | null
  },
) =>
  db.transaction().execute(async (tx) => {
    const [inserted] = await store.insertEntries(tx, {
      organizationId: entry.organizationId,
      entries: [{ id: nextId(), ...entry }],
    })
    if (inserted) {
      await recordAudit(tx, by, {
        organizationId: entry.organizationId,
        action: 'do_not_call.added',
        target: auditTarget(entry.phoneNumber),
        details: { source: entry.sourceKind },
      })
      return { entry: toEntry(inserted), alreadyListed: false }
    }
    const kept = await store.findEntry(tx, entry)
    if (!kept) throw new Error('a listed number vanished mid-add')
    return { entry: toEntry(kept), alreadyListed: true }
  })

export const removeFromList = async (
  ctx: AppContext,
  { organizationId, phoneNumber, by }: { organizationId: string; phoneNumber: string; by: AuditBy },
) =>
  ctx.db.transaction().execute(async (tx) => {
    const removed = await store.deleteEntry(tx, { organizationId, phoneNumber })
    if (!removed) throw AppError.notFound('do-not-call entry')
    await recordAudit(tx, by, {
      organizationId,
      action: 'do_not_call.removed',
      target: auditTarget(phoneNumber),
      details: { source: removed.sourceKind },
    })
  })

/** What an import reads: a CSV's records (header first) or the JSON list. */
export type ImportSource = { kind: 'csv'; records: string[][] } | { kind: 'json'; phoneNumbers: string[] }

/** The CSV's phone column: `phone`, `phoneNumber`, `phone_number` or `number` (any case). */
const PHONE_COLUMNS = ['phone', 'phonenumber', 'phone_number', 'number']

/** Each candidate number with its row: CSV rows count the header as 1, JSON places from 1. */
const candidatesOf = (source: ImportSource) => {
  if (source.kind === 'json')
    return source.phoneNumbers.map((phoneNumber, at) => ({ row: at + 1, phoneNumber: phoneNumber.trim() }))
  const [header, ...records] = source.records
  if (!header) throw AppError.badRequest('Invalid CSV: the file is empty', 'invalid_csv')
  const phoneAt = PHONE_COLUMNS.map((name) => columnIndex(header, name)).find((at) => at >= 0)
  if (phoneAt === undefined)
    throw AppError.badRequest(
      'The CSV has no phone column (header row: phone, then any other columns)',
      'missing_phone_column',
    )
  return records.map((record, at) => ({ row: at + 2, phoneNumber: (record[phoneAt] ?? '').trim() }))
}

/**
 * POST /v1/do-not-call/import: every valid number not listed yet is added (source `import`), in
 * one transaction with one audit line; invalid ones are counted and listed with their rows.
 */
export const importToList = async (
  ctx: AppContext,
  { organizationId, source, by }: { organizationId: string; source: ImportSource; by: AuditBy },
): Promise<DoNotCallImported> => {
  const candidates = candidatesOf(source)
  const invalidRows: Array<{ row: number; phoneNumber: string }> = []
  const valid = new Set<string>()
  let repeated = 0
  for (const [at, candidate] of candidates.entries()) {
    // A number check costs tens of microseconds: let other requests run every few hundred rows.
    if (at % 200 === 199) await setImmediate()
    if (valid.has(candidate.phoneNumber)) repeated += 1
    else if (isE164(candidate.phoneNumber)) valid.add(candidate.phoneNumber)
    else invalidRows.push(candidate)
  }
  if (valid.size > doNotCallLimits.maxImportNumbers)
    throw AppError.badRequest(
      `The import holds more than ${doNotCallLimits.maxImportNumbers} numbers; split it`,
      'validation_error',
    )
  const added = await ctx.db.transaction().execute(async (tx) => {
    const inserted = await store.insertEntries(tx, {
      organizationId,
      entries: [...valid].map((phoneNumber) => ({
        id: nextId(),
        phoneNumber,
        sourceKind: 'import',
        source: 'import',
        note: null,
      })),
    })
    await recordAudit(tx, by, {
      organizationId,
      action: 'do_not_call.imported',
      target: { kind: 'do_not_call', id: null },
      details: { mode: source.kind, added: inserted.length, invalid: invalidRows.length },
    })
    return inserted.length
  })
  return {
    success: true,
    data: {
      added,
      alreadyListed: valid.size - added + repeated,
      invalid: invalidRows.length,
      invalidRows: invalidRows.slice(0, INVALID_ROWS_LISTED),
    },
  }
}

/** Whether the organization lists the number: asked before every dial. */
export const isListed = async (
  db: Executor,
  { organizationId, phoneNumber }: { organizationId: string; phoneNumber: string },
) => (await store.findListed(db, { organizationId, phoneNumbers: [phoneNumber] })).has(phoneNumber)

/** Which of these numbers the organization lists (a campaign's contacts, a claim round's). */
export const listedAmong = (
  db: Executor,
  query: { organizationId: string; phoneNumbers: readonly string[] },
) => store.findListed(db, query)

/** The refusal of a listed number (POST /v1/calls). */
export const doNotCallRefusal = (phoneNumber: string) =>
  AppError.conflict(`${phoneNumber} is on this organization's do-not-call list`, 'do_not_call')

/**
 * opt_out: the person on a call or in a conversation asked not to be called again. Adds the number
 * with the call's or conversation's id as its source (idempotent). Answers whether it was new.
 * `by` is the request that carried it: the worker's, or the visitor's chat message.
 */
export const optOut = async (
  ctx: AppContext,
  entry: {
    organizationId: string
    phoneNumber: string
    sourceKind: 'call' | 'conversation'
    source: string
    by: AuditBy
  },
) => {
  requireValidNumber(entry.phoneNumber)
  return addNumber(ctx.db, { ...entry, note: null })
}
