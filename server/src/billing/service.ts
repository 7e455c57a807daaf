import type { LedgerEntry } from '@parley/shared'
import type { Kysely } from 'kysely'
import { ulid } from 'ulid'
import type { Database, Executor } from '../db/index.ts'
import { AppError } from '../http/app-error.ts'
import * as store from './store.ts'

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
  const apply = (tx: Executor) => store.applyBalanceChange(tx, { id: ulid(), reference: null, ...change })
  const outcome = executor ? await apply(executor) : await db.transaction().execute(apply)
  if (outcome.status === 'no_organization') throw AppError.notFound('organization')
  if (outcome.status === 'insufficient')
    throw AppError.paymentRequired('Insufficient credits for this operation')
  return outcome.entry
}

/**
 * Debits usage that already happened: the whole amount, or the rest of the balance when it cannot
 * cover it (the balance never goes below zero). Returns the micro-USD debited. Pass `executor` to
 * join a caller's transaction.
 */
export const debitUsage = async (
  target: { db: Kysely<Database>; executor?: Executor },
  { amountMicros, ...change }: Omit<BalanceChange, 'kind'>,
): Promise<number> => {
  if (amountMicros <= 0) return 0
  const debit = (amount: number) => changeBalance(target, { ...change, kind: 'usage', amountMicros: -amount })
  try {
    await debit(amountMicros)
    return amountMicros
  } catch (error) {
    if (!(error instanceof AppError && error.status === 402)) throw error
    const rest = Math.max(0, await getBalanceMicros(target.executor ?? target.db, change.organizationId))
    if (rest > 0) await debit(rest)
    return rest
  }
}

export const getBalanceMicros = async (db: Executor, organizationId: string): Promise<number> => {
  const balance = await store.findBalance(db, organizationId)
  if (balance === undefined) throw AppError.notFound('organization')
  return balance
}

export const listLedger = async (db: Executor, organizationId: string, limit = 100) =>
  (await store.listLedger(db, organizationId, { limit })).map(presentLedgerEntry)

export const presentLedgerEntry = (entry: store.LedgerRow): LedgerEntry => ({
  id: entry.id,
  amountUsd: toUsd(entry.amountMicros),
  balanceAfterUsd: toUsd(entry.balanceAfterMicros),
  kind: entry.kind,
  reason: entry.reason,
  createdAt: entry.createdAt.toISOString(),
})
