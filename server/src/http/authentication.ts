import { hash, timingSafeEqual } from 'node:crypto'
import type { Request, RequestHandler } from 'express'
import type { AppContext } from '../context.ts'
import { AppError } from './app-error.ts'
import { limitKeyFailures } from './guess-limits.ts'
import { limitRequests } from './rate-limit.ts'
import type { AuthKind } from './route-table.ts'
import type { ApiKeyActor, ChatSessionActor, StudioActor } from './types.ts'

/**
 * How a request's credentials are read, registered by the areas that own them (app.ts hands them
 * over): keys/ reads API keys, orgs/ studio sessions and organizations' limits, chat/ chat session
 * tokens. This file imports no area.
 */
export type Authenticators = {
  /** keys/: a secret or widget API key (a widget key only where `allowWidget`, from an allowed Origin). */
  apiKey: (input: {
    ctx: AppContext
    key: string | undefined
    origin: string | undefined
    allowWidget: boolean
  }) => Promise<ApiKeyActor>
  /** orgs/: a studio session token, the member it names with that member's role. */
  studioToken: (ctx: AppContext, token: string) => Promise<StudioActor>
  /** orgs/: the organization's v1 requests per minute (its tier's, or its custom limit); undefined when it is gone. */
  v1RateLimitOf: (ctx: AppContext, organizationId: string) => Promise<number | undefined>
  /** chat/: a chat session token, which must be for `conversationId`. */
  chatSession: (
    ctx: AppContext,
    input: { token: string | undefined; conversationId: string },
  ) => Promise<ChatSessionActor>
}

/** Tells a JWT from an API key by form (three base64url segments), without trying both. */
export const looksLikeJwt = (credential: string) => /^[\w-]+\.[\w-]+\.[\w-]*$/.test(credential)

/**
 * A request header that is sent once (node joins repeats of these into one string). Read from
 * `req.headers` by its lowercase name: `req.get` costs a call and a switch on every read.
 */
const headerOf = (req: Request, name: 'x-api-key' | 'origin'): string | undefined => {
  const value = req.headers[name]
  return typeof value === 'string' ? value : undefined
}

const bearerOf = (req: Request): string | undefined =>
  req.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1]

const sha256 = (value: string) => hash('sha256', value, 'buffer')

/** Compares digests so neither the length nor a common prefix of the secret shows in the timing. */
export const isSameSecret = (given: string, expected: string) =>
  timingSafeEqual(sha256(given), sha256(expected))

const requireStudio =
  (ctx: AppContext, auth: Authenticators): RequestHandler =>
  async (req, _res, next) => {
    const token = bearerOf(req)
    if (!token || !looksLikeJwt(token))
      throw AppError.unauthorized('A studio session token is required (Authorization: Bearer <token>)')
    req.actor = await auth.studioToken(ctx, token)
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

/**
 * The API key of a v1 request, from `Authorization: Bearer` or `X-API-Key` (the spec shows both),
 * given the bearer token and the X-API-Key header read once by the caller.
 * A JWT is told apart by its form and refused here, without trying it as a key.
 */
const apiKeyFrom = (bearer: string | undefined, apiKeyHeader: string | undefined): string | undefined => {
  const header = apiKeyHeader?.trim() || undefined
  if (bearer && looksLikeJwt(bearer))
    throw AppError.unauthorized('Session tokens are not accepted here; send an API key', 'invalid_api_key')
  if (bearer && header && !isSameSecret(bearer, header))
    throw AppError.unauthorized(
      'Authorization and X-API-Key carry different keys; send one',
      'invalid_api_key',
    )
  return bearer ?? header
}

/** v1 takes secret keys only; widget keys are for chat and voice session creation. */
/**
 * A v1 route: a secret API key, or a studio session (the studio web app talks to the same public
 * API), which acts as the member it names with that member's role and the organization's v1 rate
 * limit. A widget key is refused.
 */
const requireSecretKey =
  (ctx: AppContext, auth: Authenticators): RequestHandler =>
  async (req, res, next) => {
    const bearer = bearerOf(req)
    const apiKeyHeader = headerOf(req, 'x-api-key')
    if (bearer && looksLikeJwt(bearer) && apiKeyHeader === undefined) {
      req.actor = await studioOnV1(ctx, auth, bearer)
      next()
      return
    }
    req.actor = await limitKeyFailures(
      ctx,
      { req, res, keyOf: () => apiKeyFrom(bearer, apiKeyHeader) },
      (key) => auth.apiKey({ ctx, key, origin: headerOf(req, 'origin'), allowWidget: false }),
    )
    next()
  }

const studioOnV1 = async (ctx: AppContext, auth: Authenticators, token: string): Promise<ApiKeyActor> => {
  const studio = await auth.studioToken(ctx, token)
  const rateLimitPerMinute = await auth.v1RateLimitOf(ctx, studio.organizationId)
  if (rateLimitPerMinute === undefined)
    throw AppError.unauthorized('This session no longer has access to its organization')
  return {
    kind: 'apiKey',
    keyId: null,
    keyType: 'secret',
    organizationId: studio.organizationId,
    rateLimitPerMinute,
    member: { userId: studio.userId, role: studio.role },
  }
}

/**
 * Chat and voice session creation (spec "Authentication"): X-API-Key (or, as on v1,
 * Authorization: Bearer) with a secret key or a widget key from an allowed Origin (voice too,
 * DESIGN.md §4), or X-Studio-Token with a studio session. The spec names the studio token for chat
 * only; voice takes it as well so the studio's Try it panel can call the agent being edited, as its
 * chat does (README "The studio's Try it panel"). The routes add their per-key rate limits.
 */
const requireSessionCreator =
  (ctx: AppContext, auth: Authenticators): RequestHandler =>
  async (req, res, next) => {
    const key = apiKeyFrom(bearerOf(req), headerOf(req, 'x-api-key'))
    const studioToken = req.get('x-studio-token')?.trim()
    if (!key && studioToken) {
      if (!looksLikeJwt(studioToken))
        throw AppError.unauthorized('X-Studio-Token is not a studio session token')
      req.actor = await auth.studioToken(ctx, studioToken)
    } else {
      // The key read above: apiKeyFrom would have thrown there already.
      req.actor = await limitKeyFailures(ctx, { req, res, keyOf: () => key }, (given) =>
        auth.apiKey({ ctx, key: given, origin: headerOf(req, 'origin'), allowWidget: true }),
      )
    }
    next()
  }

/** Chat calls after creation: the session token, whose conversation must be the path's. */
const requireChatSession =
  (ctx: AppContext, auth: Authenticators): RequestHandler =>
  async (req, _res, next) => {
    req.actor = await auth.chatSession(ctx, {
      token: bearerOf(req),
      conversationId: String(req.params.conversation_id ?? ''),
    })
    next()
  }

/**
 * The voice agent worker: `Authorization: Bearer <WORKER_TOKEN>`. Unset WORKER_TOKEN refuses
 * everyone, so a deployment without a worker exposes nothing.
 */
const requireWorker =
  (ctx: AppContext): RequestHandler =>
  (req, _res, next) => {
    const token = bearerOf(req)
    const expected = ctx.config.workerToken
    if (!expected || !token || !isSameSecret(token, expected))
      throw AppError.unauthorized('A valid worker token is required', 'invalid_worker_token')
    req.actor = { kind: 'worker' }
    next()
  }

/** The v1 budget of the key's organization: its tier's requests per minute, or its custom limit. */
const limitV1 = (ctx: AppContext) =>
  limitRequests({
    rateLimits: ctx.rateLimits,
    policyOf: (req) => ({ name: 'v1', points: apiKeyActorOf(req).rateLimitPerMinute }),
    keyOf: (req) => apiKeyActorOf(req).organizationId,
  })

export const createAuthentication = (
  ctx: AppContext,
  auth: Authenticators,
): Record<AuthKind, RequestHandler[]> => ({
  none: [],
  studio: [requireStudio(ctx, auth)],
  operator: [requireOperator(ctx)],
  apiKey: [requireSecretKey(ctx, auth), limitV1(ctx)],
  chatSessionCreator: [requireSessionCreator(ctx, auth)],
  voiceSessionCreator: [requireSessionCreator(ctx, auth)],
  chatSession: [requireChatSession(ctx, auth)],
  worker: [requireWorker(ctx)],
})

/** The studio actor of a route declared with `auth: 'studio'`. */
export const studioActorOf = (req: Request): StudioActor => {
  if (req.actor?.kind !== 'studio') throw AppError.unauthorized()
  return req.actor
}

/** The session of a route declared with `auth: 'chatSession'`. */
export const chatSessionActorOf = (req: Request): ChatSessionActor => {
  if (req.actor?.kind !== 'chatSession')
    throw AppError.unauthorized('Invalid or expired session token', 'invalid_token')
  return req.actor
}

/** Who opens a session on a `chatSessionCreator` or `voiceSessionCreator` route: a key or the studio. */
export const sessionCreatorOf = (req: Request): ApiKeyActor | StudioActor => {
  const actor = req.actor
  if (actor?.kind === 'apiKey' || actor?.kind === 'studio') return actor
  throw AppError.unauthorized('An API key is required', 'invalid_api_key')
}

/**
 * What a session creator's rate limits count by: the key, as the spec says; a studio session has
 * no key, so its member stands in.
 */
export const sessionCreatorLimitKey = (req: Request) => {
  const actor = sessionCreatorOf(req)
  return actor.kind === 'apiKey' ? `key:${actor.keyId}` : `user:${actor.userId}`
}

/** The key actor of a route declared with `auth: 'apiKey'`. */
export const apiKeyActorOf = (req: Request): ApiKeyActor => {
  if (req.actor?.kind !== 'apiKey') throw AppError.unauthorized('An API key is required', 'invalid_api_key')
  return req.actor
}
