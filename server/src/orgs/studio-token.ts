import jwt from 'jsonwebtoken'
import { hmacKeyOf } from '../crypto/hmac-key.ts'
import { AppError } from '../http/app-error.ts'

const ALGORITHM = 'HS256'
const ISSUER = 'parley'
const AUDIENCE = 'parley-studio'
export const STUDIO_TOKEN_TTL_SECONDS = 12 * 60 * 60

export type StudioClaims = { userId: string; organizationId: string }

export const signStudioToken = (secret: string, { userId, organizationId }: StudioClaims) => {
  const token = jwt.sign({ org: organizationId }, hmacKeyOf(secret), {
    algorithm: ALGORITHM,
    subject: userId,
    issuer: ISSUER,
    audience: AUDIENCE,
    expiresIn: STUDIO_TOKEN_TTL_SECONDS,
  })
  return { token, expiresAt: new Date(Date.now() + STUDIO_TOKEN_TTL_SECONDS * 1000) }
}

/** Verifies with the algorithm pinned: `alg: none`, RS/ES tokens and other secrets are all refused. */
export const verifyStudioToken = (secret: string, token: string): StudioClaims => {
  try {
    const payload = jwt.verify(token, hmacKeyOf(secret), {
      algorithms: [ALGORITHM],
      issuer: ISSUER,
      audience: AUDIENCE,
    })
    if (typeof payload !== 'object' || typeof payload.sub !== 'string' || typeof payload.org !== 'string') {
      throw new Error('malformed claims')
    }
    return { userId: payload.sub, organizationId: payload.org }
  } catch (error) {
    const expired = error instanceof jwt.TokenExpiredError
    throw new AppError({
      status: 401,
      code: 'unauthorized',
      message: expired ? 'Session expired; log in again' : 'Invalid session token',
      cause: error,
    })
  }
}
