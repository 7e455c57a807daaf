import { ZAuditLog, ZAuditLogQuery } from '@parley/shared'
import type { Request } from 'express'
import type { AppContext } from '../context.ts'
import type { RouteTable } from '../http/route-table.ts'
import { readAuditLog } from './service.ts'

/** Who asks, as the agents area reads it (a key acts as its creator): app.ts passes it in. */
type ActorOf = (ctx: AppContext, req: Request) => Promise<{ organizationId: string; role: string }>

export const registerAuditRoutes = (routes: RouteTable, ctx: AppContext, actorOf: ActorOf) => {
  routes.add({
    method: 'get',
    path: '/v1/audit-log',
    summary: 'Who changed what in the organization, newest first (owners and admins)',
    tag: 'Organization',
    auth: 'apiKey',
    query: ZAuditLogQuery,
    response: ZAuditLog,
    errors: [403],
    handle: async ({ query, req }) => {
      const actor = await actorOf(ctx, req)
      return readAuditLog(ctx.db, { organizationId: actor.organizationId, role: actor.role, query })
    },
  })
}
