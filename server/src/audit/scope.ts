import { AsyncLocalStorage } from 'node:async_hooks'
import type { Request, RequestHandler } from 'express'

export type AuditActor = { kind: 'member' | 'key' | 'operator' | 'system'; id: string | null }

// The request a change is made in, so a service records who and from where without passing them.
const requests = new AsyncLocalStorage<Request>()

/** Runs the rest of the request's chain inside its audit scope (mounted once, before the routes). */
export const auditScope: RequestHandler = (req, _res, next) => requests.run(req, next)

/** Who is acting now: the request's member or key, the operator, else the system (a job). */
export const currentActor = (): AuditActor => {
  const actor = requests.getStore()?.actor
  switch (actor?.kind) {
    case 'studio':
      return { kind: 'member', id: actor.userId }
    case 'apiKey':
      if (actor.keyId) return { kind: 'key', id: actor.keyId }
      return { kind: 'member', id: actor.member?.userId ?? null }
    case 'operator':
      return { kind: 'operator', id: null }
    default:
      return { kind: 'system', id: null }
  }
}

/** The address of the request (express's req.ip: TRUST_PROXY decides whether X-Forwarded-For counts). */
export const currentAddress = (): string | null => requests.getStore()?.ip ?? null
