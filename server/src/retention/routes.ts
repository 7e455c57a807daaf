import { ZOrgIdParams, ZRetention, ZUpdateRetention } from '@parley/shared'
import { auditByOf } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { studioActorOf } from '../http/authentication.ts'
import type { RouteTable } from '../http/route-table.ts'
import { getRetention, updateRetention } from './service.ts'

export const registerRetentionRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'get',
    path: '/api/organizations/{orgId}/retention',
    summary: 'How many days conversations, calls and exports are kept (null: forever)',
    tag: 'Organizations',
    auth: 'studio',
    params: ZOrgIdParams,
    response: ZRetention,
    errors: [404],
    handle: ({ params, req }) => getRetention(ctx, studioActorOf(req), params.orgId),
  })
  routes.add({
    method: 'patch',
    path: '/api/organizations/{orgId}/retention',
    summary: 'Set how many days records are kept (owners and admins); a daily job deletes older ones',
    tag: 'Organizations',
    auth: 'studio',
    params: ZOrgIdParams,
    body: ZUpdateRetention,
    response: ZRetention,
    errors: [403, 404],
    handle: ({ params, body, req }) =>
      updateRetention(ctx, studioActorOf(req), {
        organizationId: params.orgId,
        update: body,
        by: auditByOf(req),
      }),
  })
}
