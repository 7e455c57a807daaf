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
