import { tierRateLimits } from '@parley/shared'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import type { ApiKeyActor } from '../http/types.ts'
import type { KeyCredential } from './cache.ts'
import { hashKey } from './generate.ts'
import { isOriginAllowed } from './origin.ts'
import * as store from './store.ts'

const invalidKey = (message: string) => AppError.unauthorized(message, 'invalid_api_key')

/**
 * Finds the credential by the key's SHA-256 digest, from this instance's cache or the database.
 * The secret itself is never compared: an index lookup on a digest tells an attacker nothing
 * about how close a guess was, so there is no timing to equalize.
 */
const findCredential = async (ctx: AppContext, key: string): Promise<KeyCredential | undefined> => {
  const hash = hashKey(key)
  const cached = ctx.keyCache.get(hash)
  if (cached) return cached
  const credential = await store.findCredentialByHash(ctx.db, hash)
  if (!credential) return undefined
  ctx.keyCache.set(hash, credential)
  // At most once per cache lifetime per instance, so it costs no write per request.
  store.touchLastUsed(ctx.db, credential.id).catch((error: unknown) => {
    ctx.logger.warn({ err: error, keyId: credential.id }, 'could not record key use')
  })
  return credential
}

/**
 * Resolves an API key to its actor, or throws 401 `invalid_api_key` (unknown, expired, disabled,
 * revoked). Widget keys pass only where `allowWidget` is set, and only from an Origin on their
 * allowed domains (403 `origin_not_allowed` otherwise). Chat and voice session creation reuse it.
 */
export const authenticateApiKey = async ({
  ctx,
  key,
  origin,
  allowWidget,
}: {
  ctx: AppContext
  key: string | undefined
  origin: string | undefined
  allowWidget: boolean
}): Promise<ApiKeyActor> => {
  if (!key) throw invalidKey('An API key is required (Authorization: Bearer <API_KEY> or X-API-Key)')
  if (key.length > 200) throw invalidKey('Invalid API key')
  const credential = await findCredential(ctx, key)
  if (!credential) throw invalidKey('Invalid API key')
  if (credential.status === 'revoked') throw invalidKey('This API key was revoked')
  if (credential.status === 'disabled') throw invalidKey('This API key is disabled')
  if (credential.expiresAt.getTime() <= Date.now()) throw invalidKey('This API key has expired')
  if (credential.type === 'widget') {
    if (!allowWidget)
      throw AppError.forbidden('Widget keys can only create chat and voice sessions; use a secret key')
    if (!isOriginAllowed({ origin, allowedDomains: credential.allowedDomains }))
      throw AppError.forbidden('This origin is not on the widget key’s allowed domains', 'origin_not_allowed')
  }
  return {
    kind: 'apiKey',
    keyId: credential.id,
    keyType: credential.type,
    organizationId: credential.organizationId,
    rateLimitPerMinute: credential.rateLimitPerMinute ?? tierRateLimits[credential.tier],
  }
}
