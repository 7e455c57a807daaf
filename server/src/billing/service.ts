import type { LedgerEntry, OrganizationLedger } from '@parley/shared'
import type { Kysely } from 'kysely'
import type { Logger } from 'pino'
import { monotonicUlids } from '../crypto/ids.ts'
import type { Database, Executor } from '../db/index.ts'
import { AppError } from '../http/app-error.ts'
import { decodeCursor, encodeCursor } from '../http/cursor.ts'
import { recordSpend } from '../metrics/index.ts'
import * as store from './store.ts'

/**
 * Ledger ids: those made in one millisecond (the debits of calls closed together, written with one
 * created_at) still sort in the order they were made, which is the ledger's order after created_at.
 * One random draw per millisecond, not one per id.
 */
const newLedgerId = monotonicUlids()

export const MICROS_PER_USD = 1_000_000
export const toUsd = (micros: number) => micros / MICROS_PER_USD
export const toMicros = (usd: number) => Math.round(usd * MICROS_PER_USD)

export type CreditKind = 'trial' | 'grant' | 'correction' | 'usage'

type BalanceChange = {
  organizationId: string
  amountMicros: number
  kind: CreditKind
  reason: string
  reference?: string
}

/**
 * Credits (positive) or debits (negative) an organization in one transaction: the balance and
 * its ledger row move together or not at all. Pass `executor` to join a caller's transaction.
 */
export const changeBalance = async (
  { db, executor }: { db: Kysely<Database>; executor?: Executor },
  change: BalanceChange,
): Promise<store.LedgerRow> => {
  const apply = (tx: Executor) =>
    store.applyBalanceChange(tx, { id: newLedgerId(), reference: null, ...change })
  const outcome = executor ? await apply(executor) : await db.transaction().execute(apply)
  if (outcome.status === 'no_organization') throw AppError.notFound('organization')
  if (outcome.status === 'insufficient')
    throw AppError.paymentRequired('Insufficient credits for this operation')
  return outcome.entry
}

export type UsageChange = Omit<BalanceChange, 'kind'>

/** Where usage is debited: the database, a caller's open transaction, and the log for overdrafts. */
type UsageTarget = { db: Kysely<Database>; executor?: Executor; logger?: Logger }

/**
 * Debits usage that already happened: always the whole amount, so no usage goes unpaid. When the
 * balance could not cover it, the balance goes below zero, the organization is refused new work
 * (402) until it is topped up, the operator sees it (`overdrawn` in GET /admin/organizations) and a
 * warning is logged. Returns the micro-USD debited. One statement (`executor` joins a caller's
 * transaction).
 */
export const debitUsage = async (target: UsageTarget, change: UsageChange): Promise<number> => {
  if (change.amountMicros <= 0) return 0
  const [taken] = await debitUsages(target, [change])
  return taken ?? 0
}

/**
 * debitUsage for many at once, in one statement, in list order. Answers the micro-USD each took,
 * in order. Closing many calls together bills them all with it.
 */
export const debitUsages = async (
  { db, executor, logger }: UsageTarget,
  changes: UsageChange[],
): Promise<number[]> => {
  const charged = changes.flatMap((change, index) => (change.amountMicros > 0 ? [{ change, index }] : []))
  const results = await store.applyUsageDebits(
    executor ?? db,
    charged.map(({ change }) => ({ id: newLedgerId(), reference: null, ...change })),
  )
  if (results.some((result) => result === null)) throw AppError.notFound('organization')
  const overdrawn = new Map<string, number>()
  results.forEach((result, i) => {
    const organizationId = charged[i]?.change.organizationId
    if (result && organizationId && result.balanceAfter < 0)
      overdrawn.set(organizationId, result.balanceAfter)
  })
  for (const [organizationId, balanceAfter] of overdrawn)
    logger?.warn(
      { organizationId, balanceUsd: toUsd(balanceAfter) },
      'organization overdrawn: usage charged past its balance; new work is refused until it is topped up',
    )
  recordSpend(results.reduce((sum, result) => sum + (result?.taken ?? 0), 0))
  const byIndex = new Map(charged.map(({ index }, i) => [index, results[i]?.taken ?? 0]))
  return changes.map((_, index) => byIndex.get(index) ?? 0)
}

export const getBalanceMicros = async (db: Executor, organizationId: string): Promise<number> => {
  const balance = await store.findBalance(db, organizationId)
  if (balance === undefined) throw AppError.notFound('organization')
  return balance
}

export const listLedger = async (db: Executor, organizationId: string, limit = 100) =>
  (await store.listLedger(db, organizationId, { limit })).map(presentLedgerEntry)

/** A page of the ledger, newest first, with the balance now; `cursor` is the previous page's nextCursor. */
export const readLedgerPage = async (
  db: Executor,
  { organizationId, limit, cursor }: { organizationId: string; limit: number; cursor?: string | undefined },
): Promise<OrganizationLedger> => {
  const after = cursor ? decodeCursor(cursor) : null
  const [rows, balance] = await Promise.all([
    store.listLedgerPage(db, { organizationId, limit, after }),
    getBalanceMicros(db, organizationId),
  ])
  const page = rows.slice(0, limit)
  const last = page.at(-1)
  return {
    balanceUsd: toUsd(balance),
    entries: page.map(presentLedgerEntry),
    nextCursor: rows.length > limit && last ? encodeCursor({ createdAt: last.cursorAt, id: last.id }) : null,
  }
}

export const presentLedgerEntry = (entry: store.LedgerRow): LedgerEntry => ({
  id: entry.id,
  amountUsd: toUsd(entry.amountMicros),
  balanceAfterUsd: toUsd(entry.balanceAfterMicros),
  kind: entry.kind,
  reason: entry.reason,
  createdAt: entry.createdAt.toISOString(),
})
