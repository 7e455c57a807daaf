import type { Kysely } from 'kysely'
import { ulid } from 'ulid'
import type { Database } from '../db/index.ts'
import { AppError } from '../http/app-error.ts'
import * as store from './hold-store.ts'
import { newLedgerId, type UsageChange } from './service.ts'

export const newHoldId = () => `hold_${ulid()}`

/**
 * Settles a hold by the real cost: the hold is released and the usage debited (the whole cost, or
 * what is left of the balance) in one statement, so the credits are never both held and spent.
 * Answers the micro-USD debited.
 */
export const settleHold = async (
  { db }: { db: Kysely<Database> },
  { holdId, usage }: { holdId: string; usage: UsageChange },
): Promise<number> => {
  const taken = await store.settleHold(db, {
    holdId,
    ledgerId: newLedgerId(),
    organizationId: usage.organizationId,
    amountMicros: Math.max(0, usage.amountMicros),
    reason: usage.reason,
    reference: usage.reference ?? null,
  })
  if (taken === null) throw AppError.notFound('organization')
  return taken
}

/** Releases holds whose work did not happen (a refused start, a failure before any usage). */
export const releaseHolds = ({ db }: { db: Kysely<Database> }, holdIds: string[]) =>
  store.releaseHolds(db, holdIds)

/**
 * Reserves `amountMicros` for work about to start when the balance minus the open holds covers it
 * (and `atLeastMicros`). Answers the hold's id, or null when the credits cannot cover it.
 */
export const holdCredits = async (
  ctx: { db: Kysely<Database>; instanceId: string },
  hold: {
    organizationId: string
    kind: store.HoldKind
    reference: string
    amountMicros: number
    atLeastMicros?: number
    ttlMs: number
  },
): Promise<string | null> => {
  const id = newHoldId()
  const now = new Date()
  const isHeld = await store.placeHold(ctx.db, {
    id,
    atLeastMicros: 0,
    ...hold,
    instanceId: ctx.instanceId,
    now,
    expiresAt: new Date(now.getTime() + hold.ttlMs),
  })
  return isHeld ? id : null
}
