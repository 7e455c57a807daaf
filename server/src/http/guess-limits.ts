import type { Request, Response } from 'express'
import type { AppContext } from '../context.ts'
import { AppError } from './app-error.ts'
import { guessPolicies, refundPoint, refuseWhenExhausted, spendPoint } from './rate-limit.ts'

/** The client address as express reports it behind the configured proxies. */
const addressOf = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown'

/**
 * Runs a sign-in attempt under its budgets: one point per account (its email, case-folded) and
 * one per address, spent before the password is checked so concurrent guesses cannot overrun
 * them; a successful sign-in gives both back. Once a budget is spent even the right password
 * answers 429 until the window ends.
 */
export const limitSignIn = async <T>(
  ctx: AppContext,
  { req, res, email }: { req: Request; res: Response; email: string },
  attempt: () => Promise<T>,
): Promise<T> => {
  const policies = guessPolicies(ctx.config.guessLimits)
  const spent = [
    { policy: policies.signInPerAddress, key: addressOf(req) },
    { policy: policies.signInPerAccount, key: email.trim().toLowerCase() },
  ]
  for (const { policy, key } of spent) await spendPoint({ rateLimits: ctx.rateLimits, policy, key, res })
  const result = await attempt()
  await Promise.all(spent.map(({ policy, key }) => refundPoint({ rateLimits: ctx.rateLimits, policy, key })))
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
 * Runs an API-key authentication under the per-address budget of failures: an address whose
 * budget is spent is refused (429) before its key is looked at, and every invalid key spends a
 * point. Valid keys spend nothing.
 */
export const limitKeyFailures = async <T>(
  ctx: AppContext,
  { req, res }: { req: Request; res: Response },
  authenticate: () => Promise<T>,
): Promise<T> => {
  const policy = guessPolicies(ctx.config.guessLimits).keyFailuresPerAddress
  const key = addressOf(req)
  await refuseWhenExhausted({ rateLimits: ctx.rateLimits, policy, key, res })
  try {
    return await authenticate()
  } catch (error) {
    if (error instanceof AppError && error.status === 401) {
      await spendPoint({ rateLimits: ctx.rateLimits, policy, key, res })
    }
    throw error
  }
}
