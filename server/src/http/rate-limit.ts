import type { Request, RequestHandler, Response } from 'express'
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible'
import type { RedisClient } from '../redis.ts'
import { AppError } from './app-error.ts'

/** A named budget: `points` requests per `durationSeconds` for each key the route picks. */
export type RatePolicy = { name: string; points: number; durationSeconds?: number }

export type RateLimits = { limiterFor: (policy: RatePolicy) => RateLimiterAbstract }

/**
 * One limiter per policy and size, shared by every route that uses it. With Redis all instances
 * draw from one budget; should Redis fail, an in-memory limiter of the same size takes over
 * (rate-limiter-flexible's insurance) rather than letting every request through or refusing all.
 */
export const createRateLimits = ({ redis }: { redis: RedisClient | null }): RateLimits => {
  const limiters = new Map<string, RateLimiterAbstract>()
  return {
    limiterFor: ({ name, points, durationSeconds = 60 }) => {
      const id = `${name}:${points}:${durationSeconds}`
      let limiter = limiters.get(id)
      if (!limiter) {
        const options = { keyPrefix: `parley:rl:${name}`, points, duration: durationSeconds }
        const memory = new RateLimiterMemory(options)
        limiter = redis
          ? new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: memory })
          : memory
        limiters.set(id, limiter)
      }
      return limiter
    },
  }
}

const setRateHeaders = (
  res: Response,
  { name, points, durationSeconds = 60 }: RatePolicy,
  outcome: RateLimiterRes,
) => {
  const remaining = Math.max(0, outcome.remainingPoints)
  const resetSeconds = Math.max(0, Math.ceil(outcome.msBeforeNext / 1000))
  // setHeader, not res.set: this runs on every limited request and needs none of set's coercions.
  res.setHeader('X-RateLimit-Limit', String(points))
  res.setHeader('X-RateLimit-Remaining', String(remaining))
  // Unix time in seconds, as GitHub and most X-RateLimit-* users send it.
  res.setHeader('X-RateLimit-Reset', String(Math.ceil((Date.now() + outcome.msBeforeNext) / 1000)))
  // draft-ietf-httpapi-ratelimit-headers: policy (quota q per window w) and what is left.
  res.setHeader('RateLimit-Policy', `"${name}";q=${points};w=${durationSeconds}`)
  res.setHeader('RateLimit', `"${name}";r=${remaining};t=${resetSeconds}`)
}

/**
 * Spends one point of `policy` for `key`, setting the rate-limit headers; an exhausted budget
 * throws 429 with Retry-After, in the area's body shape (the error handler picks it).
 */
export const spendPoint = async ({
  rateLimits,
  policy,
  key,
  res,
}: {
  rateLimits: RateLimits
  policy: RatePolicy
  key: string
  res: Response
}) => {
  try {
    setRateHeaders(res, policy, await rateLimits.limiterFor(policy).consume(key))
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection
    setRateHeaders(res, policy, rejection)
    throw AppError.tooManyRequests(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)))
  }
}

/** Gives back a point spent by `spendPoint` (a sign-in that turned out right costs nothing). */
export const refundPoint = async ({
  rateLimits,
  policy,
  key,
}: {
  rateLimits: RateLimits
  policy: RatePolicy
  key: string
}) => {
  await rateLimits.limiterFor(policy).reward(key, 1)
}

/** The budget's state when `key` has no point left (spending none), or null while it has. */
export const exhaustedBudget = async ({
  rateLimits,
  policy,
  key,
}: {
  rateLimits: RateLimits
  policy: RatePolicy
  key: string
}): Promise<RateLimiterRes | null> => {
  const state = await rateLimits.limiterFor(policy).get(key)
  return state && state.consumedPoints >= policy.points ? state : null
}

/** The 429 of an exhausted budget, with its headers set on `res`. */
export const budgetRefusal = (res: Response, policy: RatePolicy, state: RateLimiterRes) => {
  setRateHeaders(res, policy, state)
  return AppError.tooManyRequests(Math.max(1, Math.ceil(state.msBeforeNext / 1000)))
}

/**
 * Budgets against guessing: sign-in attempts per account and per address (a right password gives
 * its points back), sign-ups per address, failed API-key authentications per address. The sizes
 * come from config (SIGNIN_ATTEMPTS_PER_ACCOUNT, …); the windows are fixed here.
 */
export const guessPolicies = (limits: {
  signInPerAccount: number
  signInPerAddress: number
  signUpPerAddress: number
  keyFailuresPerAddress: number
}) =>
  ({
    signInPerAccount: { name: 'signin-account', points: limits.signInPerAccount, durationSeconds: 900 },
    signInPerAddress: { name: 'signin-address', points: limits.signInPerAddress, durationSeconds: 900 },
    signUpPerAddress: { name: 'signup-address', points: limits.signUpPerAddress, durationSeconds: 3600 },
    keyFailuresPerAddress: {
      name: 'key-failures-address',
      points: limits.keyFailuresPerAddress,
      durationSeconds: 900,
    },
  }) as const satisfies Record<string, RatePolicy>

/**
 * Middleware that spends one point of `policyOf(req)` for `keyOf(req)`. Every answer carries the
 * rate-limit headers; an exhausted budget throws 429 with Retry-After, in the area's body shape.
 */
export const limitRequests =
  ({
    rateLimits,
    policyOf,
    keyOf,
  }: {
    rateLimits: RateLimits
    policyOf: (req: Request) => RatePolicy
    keyOf: (req: Request) => string
  }): RequestHandler =>
  async (req, res, next) => {
    const policy = policyOf(req)
    const limiter = rateLimits.limiterFor(policy)
    try {
      setRateHeaders(res, policy, await limiter.consume(keyOf(req)))
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection
      setRateHeaders(res, policy, rejection)
      throw AppError.tooManyRequests(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)))
    }
    next()
  }

/** The spec's chat limits, for the chat routes to mount with `limitRequests`. */
export const chatRatePolicies = {
  /** Per API key. */
  createSession: { name: 'chat-create-session', points: 100 },
  /** The rest are per session. */
  sendMessage: { name: 'chat-send-message', points: 60 },
  readHistory: { name: 'chat-read-history', points: 100 },
  endSession: { name: 'chat-end-session', points: 60 },
} as const satisfies Record<string, RatePolicy>
