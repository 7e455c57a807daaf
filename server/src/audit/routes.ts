import { ZAuditLog, ZAuditLogQuery } from '@parley/shared'
import { agentActorOf } from '../agents/actor.ts'
import type { AppContext } from '../context.ts'
import type { RouteTable } from '../http/route-table.ts'
import { readAuditLog } from './service.ts'

export const registerAuditRoutes = (routes: RouteTable, ctx: AppContext) => {
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
      const actor = await agentActorOf(ctx, req)
      return readAuditLog(ctx.db, { organizationId: actor.organizationId, role: actor.role, query })
    },
  })
}
