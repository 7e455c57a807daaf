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
 * The conditional UPDATE takes the row lock, so concurrent debits can never overdraw. Both writes
 * are one statement (a data-modifying CTE): the organization's row is locked by the first
 * statement of the change, so no round trip to the client happens between taking that lock and
 * the caller's next step (usually its commit), and concurrent changes wait on it as little as can be.
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
  const { rows } = await sql<LedgerRow>`
    with moved as (
      update organizations set credit_balance_micros = credit_balance_micros + ${change.amountMicros}
      where id = ${change.organizationId} and credit_balance_micros + ${change.amountMicros} >= 0
      returning credit_balance_micros
    )
    insert into credit_ledger
      (id, organization_id, amount_micros, balance_after_micros, kind, reason, reference)
    select ${change.id}, ${change.organizationId}, ${change.amountMicros}, moved.credit_balance_micros,
      ${change.kind}, ${change.reason}, ${change.reference}
    from moved
    returning id, organization_id as "organizationId", amount_micros as "amountMicros",
      balance_after_micros as "balanceAfterMicros", kind, reason, reference, created_at as "createdAt"
  `.execute(db)
  const entry = rows[0]
  if (entry) return { status: 'applied', entry }
  const exists = await db
    .selectFrom('organizations')
    .select('id')
    .where('id', '=', change.organizationId)
    .executeTakeFirst()
  return { status: exists ? 'insufficient' : 'no_organization' }
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
