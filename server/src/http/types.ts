import type { Role } from '@parley/shared'

/** Who is calling, once an authentication middleware has run. */
export type StudioActor = { kind: 'studio'; userId: string; organizationId: string; role: Role }
export type OperatorActor = { kind: 'operator' }
export type ApiKeyActor = {
  kind: 'apiKey'
  /** The key; null when a studio session calls /v1 (see `member`). */
  keyId: string | null
  keyType: 'secret' | 'widget'
  organizationId: string
  /** The organization's v1 budget per minute (tier default or its custom limit). */
  rateLimitPerMinute: number
  /**
   * A studio session calling /v1 (the studio web app): the member it names, with their role as it
   * is now. A key acts for its creator instead (agents/actor.ts).
   */
  member?: { userId: string; role: Role }
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
