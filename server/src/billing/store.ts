import { sql } from 'kysely'
import type { Executor } from '../db/index.ts'

export type LedgerRow = {
  id: string
  organizationId: string
  amountMicros: number
  balanceAfterMicros: number
  kind: string
  reason: string
  reference: string | null
  createdAt: Date
}

export type ApplyOutcome =
  | { status: 'applied'; entry: LedgerRow }
  | { status: 'insufficient' }
  | { status: 'no_organization' }

/**
 * Moves the balance and appends the ledger row on the given executor, which must be a transaction.
 * The conditional UPDATE takes the row lock, so concurrent debits can never overdraw.
 */
export const applyBalanceChange = async (
  db: Executor,
  change: {
    id: string
    organizationId: string
    amountMicros: number
    kind: string
    reason: string
    reference: string | null
  },
): Promise<ApplyOutcome> => {
  const updated = await db
    .updateTable('organizations')
    .set({ credit_balance_micros: sql`credit_balance_micros + ${change.amountMicros}` })
    .where('id', '=', change.organizationId)
    .where(sql<boolean>`credit_balance_micros + ${change.amountMicros} >= 0`)
    .returning('credit_balance_micros')
    .executeTakeFirst()
  if (!updated) {
    const exists = await db
      .selectFrom('organizations')
      .select('id')
      .where('id', '=', change.organizationId)
      .executeTakeFirst()
    return { status: exists ? 'insufficient' : 'no_organization' }
  }
  const entry = await db
    .insertInto('credit_ledger')
    .values({
      id: change.id,
      organization_id: change.organizationId,
      amount_micros: change.amountMicros,
      balance_after_micros: updated.credit_balance_micros,
      kind: change.kind,
      reason: change.reason,
      reference: change.reference,
    })
    .returning([
      'id',
      'organization_id as organizationId',
      'amount_micros as amountMicros',
      'balance_after_micros as balanceAfterMicros',
      'kind',
      'reason',
      'reference',
      'created_at as createdAt',
    ])
    .executeTakeFirstOrThrow()
  return { status: 'applied', entry }
}

export const listLedger = (
  db: Executor,
  organizationId: string,
  { limit }: { limit: number },
): Promise<LedgerRow[]> =>
  db
    .selectFrom('credit_ledger')
    .select([
      'id',
      'organization_id as organizationId',
      'amount_micros as amountMicros',
      'balance_after_micros as balanceAfterMicros',
      'kind',
      'reason',
      'reference',
      'created_at as createdAt',
    ])
    .where('organization_id', '=', organizationId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()

export const findBalance = async (db: Executor, organizationId: string): Promise<number | undefined> => {
  const row = await db
    .selectFrom('organizations')
    .select('credit_balance_micros')
    .where('id', '=', organizationId)
    .executeTakeFirst()
  return row?.credit_balance_micros
}
