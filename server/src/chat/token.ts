import jwt from 'jsonwebtoken'
import { hmacKeyOf } from '../crypto/hmac-key.ts'
import { AppError } from '../http/app-error.ts'

const ALGORITHM = 'HS256'
const ISSUER = 'parley'
// Distinct from the studio token's audience, so neither token is accepted in the other's place.
const AUDIENCE = 'parley-chat'
export const CHAT_TOKEN_TTL_SECONDS = 24 * 60 * 60

export type ChatSessionClaims = {
  conversationId: string
  organizationId: string
  agentId: string
  /** Null when the session was opened with a studio token rather than a key. */
  keyId: string | null
}

export const invalidChatToken = (cause?: unknown) =>
  new AppError({ status: 401, code: 'invalid_token', message: 'Invalid or expired session token', cause })

export const signChatToken = (secret: string, claims: ChatSessionClaims) =>
  jwt.sign({ org: claims.organizationId, agt: claims.agentId, kid: claims.keyId }, hmacKeyOf(secret), {
    algorithm: ALGORITHM,
    subject: claims.conversationId,
    issuer: ISSUER,
    audience: AUDIENCE,
    expiresIn: CHAT_TOKEN_TTL_SECONDS,
  })

/** Verifies with the algorithm pinned; any failure (expired, forged, other audience) is 401 invalid_token. */
export const verifyChatToken = (secret: string, token: string): ChatSessionClaims => {
  let payload: string | jwt.JwtPayload
  try {
    payload = jwt.verify(token, hmacKeyOf(secret), {
      algorithms: [ALGORITHM],
      issuer: ISSUER,
      audience: AUDIENCE,
    })
  } catch (error) {
    throw invalidChatToken(error)
  }
  if (
    typeof payload !== 'object' ||
    typeof payload.sub !== 'string' ||
    typeof payload.org !== 'string' ||
    typeof payload.agt !== 'string' ||
    !(typeof payload.kid === 'string' || payload.kid === null)
  )
    throw invalidChatToken()
  return {
    conversationId: payload.sub,
    organizationId: payload.org,
    agentId: payload.agt,
    keyId: payload.kid,
  }
}
