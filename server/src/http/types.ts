import type { Role } from '@parley/shared'

/** Who is calling, once an authentication middleware has run. */
export type StudioActor = { kind: 'studio'; userId: string; organizationId: string; role: Role }
export type OperatorActor = { kind: 'operator' }
export type Actor = StudioActor | OperatorActor

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by the authentication middleware of the route. */
    actor?: Actor
  }
}
