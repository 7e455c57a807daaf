import { sql } from 'kysely'
import { ulid } from 'ulid'
import type { AppContext } from '../context.ts'
import type { Executor } from '../db/index.ts'
import { AppError } from '../http/app-error.ts'

/**
 * Credit holds: no usage without a paid-for hold. A reply, a voice call or a dial reserves its
 * expected cost before it starts; admission is `balance - open holds >= cost`, decided while the
 * organization's balance row is locked, so concurrent admissions are taken one after another and
 * can never together promise more than the balance. The real cost, debited through the ledger,
 * settles the hold, which is then removed. A hold whose owner died unsettled stops counting at
 * `expires_at`.
 */

export type HoldKind = 'reply' | 'call'

/**
 * Places a hold of `amountMicros`, or answers null when the balance minus the open holds cannot
 * cover it (or the balance is under `minBalanceMicros`). Two statements in one transaction: the
 * lock first, then the sum and the insert in a statement of their own, whose snapshot (read
 * committed) sees every hold committed by those who held the lock before.
 */
export const placeHold = async (
  ctx: AppContext,
  hold: {
    organizationId: string
    amountMicros: number
    kind: HoldKind
    reference?: string | null
    ttlMs: number
    minBalanceMicros?: number
  },
): Promise<string | null> => {
  const id = ulid()
  const now = new Date()
  try {
    return await ctx.db.transaction().execute(async (tx) => {
      const organization = await tx
        .selectFrom('organizations')
        .select('credit_balance_micros')
        .where('id', '=', hold.organizationId)
        .forUpdate()
        .executeTakeFirst()
      if (!organization) throw AppError.notFound('organization')
      const { rows } = await sql<{ id: string }>`
        insert into credit_holds (id, organization_id, amount_micros, kind, reference, created_at, expires_at)
        select ${id}, o.id, ${hold.amountMicros}, ${hold.kind}, ${hold.reference ?? null}, ${now},
          ${new Date(now.getTime() + hold.ttlMs)}
        from organizations o
        where o.id = ${hold.organizationId}
          and o.credit_balance_micros >= ${Math.max(hold.minBalanceMicros ?? 0, 1)}
          and o.credit_balance_micros - coalesce((select sum(h.amount_micros) from credit_holds h
            where h.organization_id = o.id and h.expires_at > ${now}), 0) >= ${hold.amountMicros}
        returning id`.execute(tx)
      return rows[0]?.id ?? null
    })
  } catch (error) {
    if (error instanceof AppError) throw error
    // A billing store that cannot answer is the spec's 503, never a free pass.
    throw AppError.unavailable('Billing service unavailable', error)
  }
}

/** placeHold, refusing with the spec's 402 when the credits (minus what is held) do not cover it. */
export const requireHold = async (
  ctx: AppContext,
  hold: Parameters<typeof placeHold>[1] & { refusal: string },
) => {
  const id = await placeHold(ctx, hold)
  if (!id) throw AppError.paymentRequired(hold.refusal)
  return id
}

/** Removes a hold (settled, or its work never started). Never throws: an expiry covers a miss. */
export const releaseHold = async (ctx: AppContext, id: string) => {
  await ctx.db
    .deleteFrom('credit_holds')
    .where('id', '=', id)
    .execute()
    .catch((error: unknown) => ctx.logger.warn({ err: error, holdId: id }, 'a credit hold was not released'))
}

/**
 * Places one hold of `amountMicros` for each reference, in order, as many as the balance minus the
 * open holds covers (placeHold for a batch of dials: one lock, one statement). Answers the
 * references held; those left out are not.
 */
export const placeHolds = async (
  ctx: AppContext,
  holds: {
    organizationId: string
    amountMicros: number
    kind: HoldKind
    references: string[]
    ttlMs: number
  },
): Promise<string[]> => {
  if (holds.references.length === 0) return []
  const now = new Date()
  try {
    return await ctx.db.transaction().execute(async (tx) => {
      await tx
        .selectFrom('organizations')
        .select('id')
        .where('id', '=', holds.organizationId)
        .forUpdate()
        .executeTakeFirst()
      const { rows } = await sql<{ reference: string }>`
        with free as (
          select o.credit_balance_micros - coalesce((select sum(h.amount_micros) from credit_holds h
            where h.organization_id = o.id and h.expires_at > ${now}), 0) as micros
          from organizations o where o.id = ${holds.organizationId} and o.credit_balance_micros > 0
        ),
        wanted as (
          select reference, n from unnest(${holds.references}::text[]) with ordinality as w(reference, n)
        )
        insert into credit_holds (id, organization_id, amount_micros, kind, reference, created_at, expires_at)
        select ${ulid()} || '-' || wanted.n, ${holds.organizationId}, ${holds.amountMicros}, ${holds.kind},
          wanted.reference, ${now}, ${new Date(now.getTime() + holds.ttlMs)}
        from wanted, free
        where wanted.n * ${holds.amountMicros} <= free.micros
        returning reference`.execute(tx)
      return rows.map((row) => row.reference)
    })
  } catch (error) {
    throw AppError.unavailable('Billing service unavailable', error)
  }
}

/** Ties a hold to what it pays for (a call's id), so the call's close settles it. */
export const referHold = (db: Executor, { id, reference }: { id: string; reference: string }) =>
  db.updateTable('credit_holds').set({ reference }).where('id', '=', id).execute()

/** Removes the holds of these references (closing calls), inside the caller's transaction. */
export const releaseHoldsOf = async (db: Executor, references: string[]) => {
  if (references.length === 0) return
  await db.deleteFrom('credit_holds').where('reference', 'in', references).execute()
}

/** What the organization's open holds reserve now. */
export const heldMicros = async (db: Executor, organizationId: string) => {
  const row = await db
    .selectFrom('credit_holds')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_micros'), eb.lit(0)).as('held'))
    .where('organization_id', '=', organizationId)
    .where('expires_at', '>', new Date())
    .executeTakeFirstOrThrow()
  return Number(row.held)
}
