import { hash } from 'node:crypto'
import type { Request, Response } from 'express'
import type { RateLimiterRes } from 'rate-limiter-flexible'
import type { AppContext } from '../context.ts'
import { AppError } from './app-error.ts'
import {
  budgetRefusal,
  exhaustedBudget,
  guessPolicies,
  type RateLimits,
  type RatePolicy,
  refundPoint,
  spendPoint,
} from './rate-limit.ts'

/** The client address as express reports it behind the configured proxies. */
const addressOf = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown'

/**
 * Keys and accounts that succeeded from an address stay known there this long: an office behind
 * one NAT keeps working while a guesser on the same address is refused.
 */
const KNOWN_SECONDS = 24 * 60 * 60
const knownFromAddress: RatePolicy = { name: 'known-from-address', points: 1, durationSeconds: KNOWN_SECONDS }
/** A busy key writes its record again at most this often per instance, not on every request. */
const RECORD_AGAIN_MS = 10 * 60 * 1000
const MAX_RECORDED = 10_000

/**
 * Per instance (its rate limits): when each pair was last recorded, by a name that holds no
 * secret (the address and the key's id, or the pair itself), so the pair's digest is made only
 * when the store is written.
 */
const recordedAt = new WeakMap<RateLimits, Map<string, number>>()

/** A pair's name in the store: the secret is never kept, only a digest of its own (not the database's). */
const pairOf = (address: string, secret: string) =>
  `${address}|${hash('sha256', `parley-known:${secret}`, 'base64url')}`

const isKnown = async (ctx: AppContext, pair: string) =>
  (await ctx.rateLimits.limiterFor(knownFromAddress).get(pair)) !== null

const rememberKnown = async (ctx: AppContext, name: string, pairNow: () => string) => {
  let recorded = recordedAt.get(ctx.rateLimits)
  if (recorded === undefined) {
    recorded = new Map<string, number>()
    recordedAt.set(ctx.rateLimits, recorded)
  }
  const last = recorded.get(name)
  if (last !== undefined && Date.now() - last < RECORD_AGAIN_MS) return
  recorded.delete(name)
  if (recorded.size >= MAX_RECORDED) recorded.delete(recorded.keys().next().value as string)
  recorded.set(name, Date.now())
  await ctx.rateLimits
    .limiterFor(knownFromAddress)
    .set(pairNow(), 1, KNOWN_SECONDS)
    .catch((error: unknown) => ctx.logger.warn({ err: error }, 'could not record a known key or account'))
}

/**
 * Runs a sign-in attempt under its budgets, spent before the password is checked so concurrent
 * guesses cannot overrun them; a successful sign-in gives them back.
 * - Per account (its email, case-folded): once spent, even the right password answers 429 until
 *   the window ends, from any address. An attacker can so lock an account out for 15 minutes; the
 *   alternative, letting a right password through, would let a guesser behind the user's own NAT
 *   guess without bound.
 * - Per address, across accounts: an account that signed in from this address within the last
 *   day is not charged to it, so a guesser on the office's NAT does not lock the office out; its
 *   guesses at those accounts stay bounded by their account budgets.
 */
export const limitSignIn = async <T>(
  ctx: AppContext,
  { req, res, email }: { req: Request; res: Response; email: string },
  attempt: () => Promise<T>,
): Promise<T> => {
  const policies = guessPolicies(ctx.config.guessLimits)
  const account = email.trim().toLowerCase()
  const address = addressOf(req)
  const pair = pairOf(address, `account:${account}`)
  const spent: Array<{ policy: RatePolicy; key: string }> = [
    { policy: policies.signInPerAccount, key: account },
  ]
  if (!(await isKnown(ctx, pair))) spent.push({ policy: policies.signInPerAddress, key: address })
  for (const { policy, key } of spent) await spendPoint({ rateLimits: ctx.rateLimits, policy, key, res })
  const result = await attempt()
  await Promise.all(spent.map(({ policy, key }) => refundPoint({ rateLimits: ctx.rateLimits, policy, key })))
  await rememberKnown(ctx, pair, () => pair)
  return result
}

/** Sign-ups per address: each attempt spends a point (trial credits make them worth farming). */
export const limitSignUp = (ctx: AppContext, { req, res }: { req: Request; res: Response }) =>
  spendPoint({
    rateLimits: ctx.rateLimits,
    policy: guessPolicies(ctx.config.guessLimits).signUpPerAddress,
    key: addressOf(req),
    res,
  })

/**
 * Runs an API-key authentication under the per-address budget of failures. The key is checked
 * first (a digest looked up through the key cache) and only a failure spends a point, so valid
 * keys never do. Once an address has spent its budget, only keys that authenticated from that
 * address within the last day are still looked at: every other key, valid or not, answers 429
 * without a lookup. The office behind a guesser's NAT keeps its keys working, while the guesser
 * learns nothing more from any guess (a valid key seen nowhere from there answers 429 too, so a
 * guess cannot be told valid by its answer or its timing).
 */
export const limitKeyFailures = async <T extends { keyId: string | null }>(
  ctx: AppContext,
  { req, res, keyOf }: { req: Request; res: Response; keyOf: (req: Request) => string | undefined },
  authenticate: (key: string | undefined) => Promise<T>,
): Promise<T> => {
  const policy = guessPolicies(ctx.config.guessLimits).keyFailuresPerAddress
  const address = addressOf(req)
  const exhausted = await exhaustedBudget({ rateLimits: ctx.rateLimits, policy, key: address })
  let key: string | undefined
  try {
    key = keyOf(req)
  } catch (error) {
    return keyFailed(ctx, { res, policy, address, exhausted }, error)
  }
  if (exhausted && !(key && (await isKnown(ctx, pairOf(address, `key:${key}`)))))
    throw budgetRefusal(res, policy, exhausted)
  let actor: T
  try {
    actor = await authenticate(key)
  } catch (error) {
    return keyFailed(ctx, { res, policy, address, exhausted }, error)
  }
  if (key)
    await rememberKnown(
      ctx,
      actor.keyId === null ? pairOf(address, `key:${key}`) : `${address}|key-id:${actor.keyId}`,
      () => pairOf(address, `key:${key}`),
    )
  return actor
}

/**
 * A failed key authentication (a 401) spends a point of the address's budget, or answers 429 once
 * it is spent; other errors pass as they are. A function of its own, not a closure made on each
 * request (tsx names each such closure as it is made, which costs more than the closure).
 */
const keyFailed = async (
  ctx: AppContext,
  {
    res,
    policy,
    address,
    exhausted,
  }: { res: Response; policy: RatePolicy; address: string; exhausted: RateLimiterRes | null },
  error: unknown,
): Promise<never> => {
  if (error instanceof AppError && error.status === 401) {
    if (exhausted) throw budgetRefusal(res, policy, exhausted)
    await spendPoint({ rateLimits: ctx.rateLimits, policy, key: address, res })
  }
  throw error
}
