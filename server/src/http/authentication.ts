import { createHash, timingSafeEqual } from 'node:crypto'
import type { Request, RequestHandler } from 'express'
import type { AppContext } from '../context.ts'
import { authenticateStudioToken } from '../orgs/service.ts'
import { looksLikeJwt } from '../orgs/studio-token.ts'
import { AppError } from './app-error.ts'
import type { AuthKind } from './route-table.ts'
import type { StudioActor } from './types.ts'

const bearerOf = (req: Request): string | undefined => {
  const header = req.get('authorization')
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i)
  return match?.[1]
}

const sha256 = (value: string) => createHash('sha256').update(value).digest()

/** Compares digests so neither the length nor a common prefix of the secret shows in the timing. */
export const isSameSecret = (given: string, expected: string) =>
  timingSafeEqual(sha256(given), sha256(expected))

const requireStudio =
  (ctx: AppContext): RequestHandler =>
  async (req, _res, next) => {
    const token = bearerOf(req)
    if (!token || !looksLikeJwt(token))
      throw AppError.unauthorized('A studio session token is required (Authorization: Bearer <token>)')
    req.actor = await authenticateStudioToken(ctx, token)
    next()
  }

const requireOperator =
  (ctx: AppContext): RequestHandler =>
  (req, _res, next) => {
    const token = bearerOf(req)
    if (!token || !isSameSecret(token, ctx.config.adminToken))
      throw AppError.unauthorized('A valid operator token is required')
    req.actor = { kind: 'operator' }
    next()
  }

export const createAuthentication = (ctx: AppContext): Record<AuthKind, RequestHandler[]> => ({
  none: [],
  studio: [requireStudio(ctx)],
  operator: [requireOperator(ctx)],
})

/** The studio actor of a route declared with `auth: 'studio'`. */
export const studioActorOf = (req: Request): StudioActor => {
  if (req.actor?.kind !== 'studio') throw AppError.unauthorized()
  return req.actor
}
