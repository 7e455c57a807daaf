import type { Role } from '@parley/shared'

/** Who is calling, once an authentication middleware has run. */
export type StudioActor = { kind: 'studio'; userId: string; organizationId: string; role: Role }
export type OperatorActor = { kind: 'operator' }
export type ApiKeyActor = {
  kind: 'apiKey'
  keyId: string
  keyType: 'secret' | 'widget'
  organizationId: string
  /** The organization's v1 budget per minute (tier default or its custom limit). */
  rateLimitPerMinute: number
}
/** The bearer of a chat session token, already matched to the path's conversation id. */
export type ChatSessionActor = {
  kind: 'chatSession'
  conversationId: string
  organizationId: string
  agentId: string
  keyId: string | null
}
/** The voice agent worker, holding WORKER_TOKEN. */
export type WorkerActor = { kind: 'worker' }
export type Actor = StudioActor | OperatorActor | ApiKeyActor | ChatSessionActor | WorkerActor

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by the authentication middleware of the route. */
    actor?: Actor
  }
}
