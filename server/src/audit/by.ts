import type { Request } from 'express'

export type AuditActor = { kind: 'member' | 'key' | 'operator' | 'system'; id: string | null }

/** Who made a change and from which address; services are handed it by their route or job. */
export type AuditBy = { actor: AuditActor; ip: string | null }

/** A change no request asked for (a job, a sweep, the demo seed): the system, from no address. */
export const auditBySystem: AuditBy = Object.freeze({
  actor: Object.freeze({ kind: 'system', id: null }),
  ip: null,
})

const actorOf = (req: Request): AuditActor => {
  const actor = req.actor
  switch (actor?.kind) {
    case 'studio':
      return { kind: 'member', id: actor.userId }
    case 'apiKey':
      if (actor.keyId) return { kind: 'key', id: actor.keyId }
      return { kind: 'member', id: actor.member?.userId ?? null }
    case 'operator':
      return { kind: 'operator', id: null }
    default:
      // A chat visitor or the voice worker is no one the log can name: the system, from its address.
      return { kind: 'system', id: null }
  }
}

/**
 * Who a request's changes are recorded as: its member or key, the operator, else the system; and
 * its address (express's req.ip: TRUST_PROXY decides whether X-Forwarded-For counts).
 */
export const auditByOf = (req: Request): AuditBy => ({ actor: actorOf(req), ip: req.ip ?? null })
