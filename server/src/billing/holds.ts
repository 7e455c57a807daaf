import { sql } from 'kysely'
import type { AppContext } from '../context.ts'
import { newUlid } from '../crypto/ids.ts'
import type { Executor } from '../db/index.ts'
import { AppError } from '../http/app-error.ts'
import { recordHolds } from '../metrics/index.ts'
import { debitUsage, type UsageChange } from './service.ts'

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
 * What a chat reply's hold records so that a crash leaves nothing unpaid: the instance streaming
 * it, the message its checkpoints write, and its round in progress (model, prompt tokens, what
 * the finished rounds cost, where the round's text starts in the message).
 */
export type ReplyRound = {
  instanceId: string
  messageId: string
  model: string
  promptTokens: number
  usedMicros: number
  textOffset: number
}

/**
 * Takes the organization's balance row lock for the rest of `tx`: every placement and cover of
 * holds decides under it, so no two see the same free balance. Answers whether the row exists.
 */
const lockBalance = async (tx: Executor, organizationId: string) =>
  (await tx
    .selectFrom('organizations')
    .select('id')
    .where('id', '=', organizationId)
    .forUpdate()
    .executeTakeFirst()) !== undefined

/**
 * Places a hold of `amountMicros`, or answers null when the balance minus the open holds cannot
 * cover it (or the balance is under `minBalanceMicros`). One statement, the database's
 * `place_credit_hold` (migration 0087): the balance row's lock first, then the sum and the insert
 * in a statement of their own, whose snapshot (read committed) sees every hold committed by those
 * who held the lock before.
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
    /** A chat reply's first round (see ReplyRound). */
    round?: ReplyRound
  },
): Promise<string | null> => {
  const id = newUlid()
  const now = new Date()
  const round = hold.round
  let outcome: 'placed' | 'refused' | 'missing' | undefined
  try {
    const { rows } = await sql<{ outcome: 'placed' | 'refused' | 'missing' }>`
      select place_credit_hold(${id}, ${hold.organizationId}, ${Math.max(hold.amountMicros, 1)},
        ${Math.max(hold.minBalanceMicros ?? 0, 1)}, ${hold.kind}, ${hold.reference ?? null}, ${now},
        ${new Date(now.getTime() + hold.ttlMs)}, ${round?.instanceId ?? null}, ${round?.messageId ?? null},
        ${round?.model ?? null}, ${round?.promptTokens ?? null}, ${round?.usedMicros ?? 0},
        ${round?.textOffset ?? 0}) as outcome`.execute(ctx.db)
    outcome = rows[0]?.outcome
  } catch (error) {
    // A billing store that cannot answer is the spec's 503, never a free pass.
    throw AppError.unavailable('Billing service unavailable', error)
  }
  if (outcome === 'missing') throw AppError.notFound('organization')
  const isPlaced = outcome === 'placed'
  recordHolds({ kind: hold.kind, placed: isPlaced ? 1 : 0, refused: isPlaced ? 0 : 1 })
  return isPlaced ? id : null
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

/**
 * Grows (or shrinks) a reply's hold to `amountMicros` before its next model round, and records the
 * round (what a crash would leave to settle). Admission as placeHold's: the balance minus the
 * organization's other open holds must cover it, decided under the balance row's lock, in one
 * statement (`cover_credit_hold`, migration 0088). Answers false, changing nothing, when it does
 * not (the round must not be sent).
 */
export const coverHold = async (
  ctx: AppContext,
  cover: {
    id: string
    organizationId: string
    amountMicros: number
    ttlMs: number
    minBalanceMicros?: number
    round: ReplyRound
  },
): Promise<boolean> => {
  const now = new Date()
  const { round } = cover
  try {
    const { rows } = await sql<{ covered: boolean }>`
      select cover_credit_hold(${cover.id}, ${cover.organizationId}, ${Math.max(cover.amountMicros, 1)},
        ${Math.max(cover.minBalanceMicros ?? 0, 1)}, ${now}, ${new Date(now.getTime() + cover.ttlMs)},
        ${round.instanceId}, ${round.messageId}, ${round.model}, ${round.promptTokens}, ${round.usedMicros},
        ${round.textOffset}) as covered`.execute(ctx.db)
    return rows[0]?.covered === true
  } catch (error) {
    throw AppError.unavailable('Billing service unavailable', error)
  }
}

/**
 * Settles a hold with what the work really cost, in the caller's transaction: the hold is removed
 * and, only if this call removed it, the whole cost is debited (usage already happened: the
 * balance may go below zero). Answers the micro-USD charged, or null when the hold was already
 * settled elsewhere (the instance that found this one dead charged it), so nothing is charged twice.
 */
export const settleHold = async (
  ctx: AppContext,
  executor: Executor,
  { id, charge }: { id: string; charge: UsageChange },
): Promise<number | null> => {
  const removed = await executor.deleteFrom('credit_holds').where('id', '=', id).returning('id').execute()
  if (removed.length === 0) return null
  return debitUsage({ db: ctx.db, executor, logger: ctx.logger }, charge)
}

export type OrphanedReplyHold = ReplyRound & {
  id: string
  organizationId: string
  conversationId: string
}

/**
 * Reply holds whose streaming instance (another than `instanceId`) has not beaten since
 * `aliveAfter` (it died mid-reply): what the instance that finds them must settle. At most
 * `limit`, oldest first.
 */
export const findOrphanedReplyHolds = async (
  db: Executor,
  { aliveAfter, instanceId, limit }: { aliveAfter: Date; instanceId: string; limit: number },
): Promise<OrphanedReplyHold[]> => {
  const rows = await db
    .selectFrom('credit_holds as h')
    .select([
      'h.id',
      'h.organization_id as organizationId',
      'h.reference as conversationId',
      'h.instance_id as instanceId',
      'h.message_id as messageId',
      'h.model',
      'h.prompt_tokens as promptTokens',
      'h.used_micros as usedMicros',
      'h.text_offset as textOffset',
    ])
    .where('h.message_id', 'is not', null)
    .where('h.instance_id', 'is not', null)
    // This instance lives (it is asking): its own replies settle themselves.
    .where('h.instance_id', '<>', instanceId)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('server_instances as i')
            .select('i.id')
            .whereRef('i.id', '=', 'h.instance_id')
            .where('i.last_seen_at', '>=', aliveAfter),
        ),
      ),
    )
    .orderBy('h.created_at')
    .limit(limit)
    .execute()
  return rows.map((row) => ({
    id: row.id,
    organizationId: row.organizationId,
    conversationId: row.conversationId ?? '',
    instanceId: row.instanceId ?? '',
    messageId: row.messageId ?? '',
    model: row.model ?? 'offline',
    promptTokens: row.promptTokens ?? 0,
    usedMicros: Number(row.usedMicros),
    textOffset: row.textOffset,
  }))
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
      await lockBalance(tx, holds.organizationId)
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
        select ${newUlid()} || '-' || wanted.n, ${holds.organizationId}, ${holds.amountMicros}, ${holds.kind},
          wanted.reference, ${now}, ${new Date(now.getTime() + holds.ttlMs)}
        from wanted, free
        where wanted.n * ${holds.amountMicros} <= free.micros
        returning reference`.execute(tx)
      recordHolds({ kind: holds.kind, placed: rows.length, refused: holds.references.length - rows.length })
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
