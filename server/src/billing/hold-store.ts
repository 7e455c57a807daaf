import { sql } from 'kysely'
import type { Executor } from '../db/index.ts'

export type HoldKind = 'chat_reply' | 'call' | 'dial'

/**
 * Reserves `amountMicros` of the organization's credits when its balance minus its open holds
 * covers `atLeastMicros` (the hold itself, or a higher minimum) and the balance is above zero.
 * One statement: the conditional UPDATE takes the organization's row lock and re-reads the row
 * after any concurrent change (PostgreSQL re-checks the condition on the newest version), so
 * concurrent reservations can never promise the same credits twice. True when reserved.
 */
export const placeHold = async (
  db: Executor,
  hold: {
    id: string
    organizationId: string
    kind: HoldKind
    reference: string
    amountMicros: number
    atLeastMicros: number
    instanceId: string
    now: Date
    expiresAt: Date
  },
): Promise<boolean> => {
  const { rows } = await sql<{ id: string }>`
    with held as (
      update organizations o set held_micros = o.held_micros + ${hold.amountMicros}
      where o.id = ${hold.organizationId} and o.credit_balance_micros > 0
        and o.credit_balance_micros - o.held_micros >= ${Math.max(hold.amountMicros, hold.atLeastMicros)}
      returning o.id
    ), hold_row as (
      insert into credit_holds (id, organization_id, kind, reference, amount_micros, instance_id, created_at, expires_at)
      select ${hold.id}, held.id, ${hold.kind}, ${hold.reference}, ${hold.amountMicros}, ${hold.instanceId},
        ${hold.now}, ${hold.expiresAt}
      from held where ${hold.amountMicros}::bigint > 0
    )
    select id from held`.execute(db)
  return rows.length > 0
}

/**
 * Deletes the chosen holds and takes their amounts off their organizations' held sums, in one
 * statement. Answers how many holds were released.
 */
const releaseWhere = async (db: Executor, chosen: ReturnType<typeof sql>) => {
  const { rows } = await sql<{ released: number }>`
    with released as (
      delete from credit_holds h where ${chosen} returning organization_id, amount_micros
    ), total as (
      select organization_id, sum(amount_micros) as amount, count(*) as n from released group by organization_id
    ), moved as (
      update organizations o set held_micros = greatest(0, o.held_micros - total.amount)
      from total where o.id = total.organization_id
    )
    select coalesce(sum(n), 0)::int as released from total`.execute(db)
  return rows[0]?.released ?? 0
}

export const releaseHolds = (db: Executor, ids: string[]) =>
  ids.length === 0 ? Promise.resolve(0) : releaseWhere(db, sql`h.id = any(${ids}::text[])`)

/** The holds of calls and dials, by their rooms' names (released as the calls close). */
export const releaseCallHolds = (db: Executor, roomNames: string[]) =>
  roomNames.length === 0
    ? Promise.resolve(0)
    : releaseWhere(db, sql`h.kind in ('call', 'dial') and h.reference = any(${roomNames}::text[])`)

/** Holds past their expiry, and holds of instances whose heartbeat is older than `aliveAfter`. */
export const releaseAbandonedHolds = (db: Executor, { now, aliveAfter }: { now: Date; aliveAfter: Date }) =>
  releaseWhere(
    db,
    sql`h.expires_at < ${now} or not exists (select 1 from server_instances i
      where i.id = h.instance_id and i.heartbeat_at >= ${aliveAfter})`,
  )

/** The holds still open for one reference (a call's, a conversation's). */
export const listHolds = async (db: Executor, { reference, kind }: { reference: string; kind: HoldKind }) =>
  db
    .selectFrom('credit_holds')
    .select(['id', 'amount_micros as amountMicros', 'organization_id as organizationId'])
    .where('reference', '=', reference)
    .where('kind', '=', kind)
    .execute()

/**
 * Settles one hold by the real cost in one statement: the hold row goes, and the organization's
 * row (locked first, read at its newest) loses the hold from its held sum and the cost from its
 * balance (the whole cost, or what is left: never below zero) in one UPDATE, with the ledger row
 * of what was taken. Answers the micro-USD taken, or null when the organization does not exist.
 */
export const settleHold = async (
  db: Executor,
  settle: {
    holdId: string
    ledgerId: string
    organizationId: string
    amountMicros: number
    reason: string
    reference: string | null
  },
): Promise<number | null> => {
  const { rows } = await sql<{ taken: number }>`
    with released as (
      delete from credit_holds where id = ${settle.holdId} and organization_id = ${settle.organizationId}
      returning amount_micros
    ), locked as (
      select id, credit_balance_micros as balance from organizations where id = ${settle.organizationId}
      for update
    ), amounts as (
      select locked.id, least(${settle.amountMicros}::bigint, greatest(locked.balance, 0)) as taken,
        coalesce((select sum(amount_micros) from released), 0) as unheld
      from locked
    ), moved as (
      update organizations o set credit_balance_micros = o.credit_balance_micros - amounts.taken,
        held_micros = greatest(0, o.held_micros - amounts.unheld)
      from amounts where o.id = amounts.id
      returning o.credit_balance_micros as balance_after
    ), ledger as (
      insert into credit_ledger (id, organization_id, amount_micros, balance_after_micros, kind, reason, reference)
      select ${settle.ledgerId}, ${settle.organizationId}, -amounts.taken, moved.balance_after, 'usage',
        ${settle.reason}, ${settle.reference}
      from amounts, moved where amounts.taken > 0
    )
    select taken::bigint as taken from amounts`.execute(db)
  return rows[0] ? Number(rows[0].taken) : null
}
