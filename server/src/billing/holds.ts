import type { Kysely } from 'kysely'
import { ulid } from 'ulid'
import type { Database } from '../db/index.ts'
import * as store from './hold-store.ts'
import { debitUsage, type UsageChange } from './service.ts'

export const newHoldId = () => `hold_${ulid()}`

/**
 * Settles a hold by the real cost: the hold is released and the usage debited (the whole cost, or
 * what is left of the balance) in one transaction, so the credits are never both held and spent.
 * Answers the micro-USD debited.
 */
export const settleHold = async (
  { db }: { db: Kysely<Database> },
  { holdIds, usage }: { holdIds: string[]; usage: UsageChange },
): Promise<number> => {
  if (holdIds.length === 0) return debitUsage({ db }, usage)
  return db.transaction().execute(async (tx) => {
    await store.releaseHolds(tx, holdIds)
    return debitUsage({ db, executor: tx }, usage)
  })
}

/** Releases holds whose work did not happen (a refused start, a failure before any usage). */
export const releaseHolds = ({ db }: { db: Kysely<Database> }, holdIds: string[]) =>
  store.releaseHolds(db, holdIds)
