import { sql } from 'kysely'
import { atExactTime, exactTime } from '../db/exact-time.ts'
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
 * The conditional UPDATE takes the row lock, so concurrent debits can never overdraw: a credit
 * always applies (it may leave a balance that usage overdrew still below zero), a debit only when
 * the balance covers it. Both writes
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
      where id = ${change.organizationId}
        and (${change.amountMicros}::bigint > 0 or credit_balance_micros + ${change.amountMicros} >= 0)
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

export type UsageDebit = {
  id: string
  organizationId: string
  amountMicros: number
  reason: string
  reference: string | null
}

/** What one usage debit did: micro-USD taken (null: no such organization) and the balance after it. */
export type UsageDebitResult = { taken: number; balanceAfter: number } | null

/**
 * Debits usage that already happened, many at once in one statement: each debit takes its whole
 * amount (usage is never dropped: the balance may go below zero, and the organization is then
 * refused new work until it is topped up) and gets a ledger row. The organizations' rows are
 * locked first (FOR UPDATE reads the latest committed balance, after any concurrent change), so
 * the running balances are computed from the balance the UPDATE then moves. Answers each debit's
 * result, in order.
 */
export const applyUsageDebits = async (db: Executor, debits: UsageDebit[]): Promise<UsageDebitResult[]> => {
  if (debits.length === 0) return []
  const { rows } = await sql<{ taken: number | null; balance_after: number | null }>`
    with input as (
      select * from unnest(
        ${debits.map((d) => d.id)}::text[], ${debits.map((d) => d.organizationId)}::text[],
        ${debits.map((d) => d.amountMicros)}::bigint[], ${debits.map((d) => d.reason)}::text[],
        ${debits.map((d) => d.reference)}::text[]
      ) with ordinality as input(id, organization_id, amount, reason, reference, n)
    ),
    locked as (
      select id, credit_balance_micros as balance from organizations
      where id in (select organization_id from input)
      for update
    ),
    taken as (
      select input.*, input.amount as taken,
        locked.balance - sum(input.amount) over (partition by input.organization_id order by input.n)
          as balance_after
      from input join locked on locked.id = input.organization_id
    ),
    moved as (
      update organizations set credit_balance_micros = credit_balance_micros - total.taken
      from (select organization_id, sum(taken) as taken from taken group by organization_id) as total
      where organizations.id = total.organization_id
    ),
    ledger as (
      insert into credit_ledger (id, organization_id, amount_micros, balance_after_micros, kind, reason, reference)
      select id, organization_id, -taken, balance_after, 'usage', reason, reference from taken
    )
    select taken.taken::bigint as taken, taken.balance_after::bigint as balance_after
    from input left join taken on taken.n = input.n
    order by input.n
  `.execute(db)
  return rows.map((row) =>
    row.taken === null || row.balance_after === null
      ? null
      : { taken: Number(row.taken), balanceAfter: Number(row.balance_after) },
  )
}

/** A ledger entry as the studio and the operator read it. */
const ledgerColumns = [
  'id',
  'organization_id as organizationId',
  'amount_micros as amountMicros',
  'balance_after_micros as balanceAfterMicros',
  'kind',
  'reason',
  'reference',
  'created_at as createdAt',
] as const

export const listLedger = (
  db: Executor,
  organizationId: string,
  { limit }: { limit: number },
): Promise<LedgerRow[]> =>
  db
    .selectFrom('credit_ledger')
    .select(ledgerColumns)
    .where('organization_id', '=', organizationId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()

/**
 * One page of an organization's ledger, newest first (keyset: creation time to the microsecond,
 * then id), `limit + 1` rows so the caller knows whether another page follows.
 */
export const listLedgerPage = (
  db: Executor,
  {
    organizationId,
    limit,
    after,
  }: { organizationId: string; limit: number; after: { createdAt: string; id: string } | null },
): Promise<Array<LedgerRow & { cursorAt: string }>> => {
  let query = db
    .selectFrom('credit_ledger')
    .select([...ledgerColumns, exactTime('created_at').as('cursorAt')])
    .where('organization_id', '=', organizationId)
  if (after)
    query = query.where(sql<boolean>`(created_at, id) < (${atExactTime(after.createdAt)}, ${after.id})`)
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute()
}

export const findBalance = async (db: Executor, organizationId: string): Promise<number | undefined> => {
  const row = await db
    .selectFrom('organizations')
    .select('credit_balance_micros')
    .where('id', '=', organizationId)
    .executeTakeFirst()
  return row?.credit_balance_micros
}
