import { ZAgentIdParams, ZPageQuery, ZWebhookDeliveryList } from '@parley/shared'
import { agentActorOf } from '../agents/actor.ts'
import { getAgent } from '../agents/service.ts'
import type { AppContext } from '../context.ts'
import { paginationOf } from '../http/pagination.ts'
import type { RouteTable } from '../http/route-table.ts'
import { listDeliveries } from './service.ts'

export const registerWebhookRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'get',
    path: '/v1/agents/{agentId}/webhook-deliveries',
    summary: "The agent's webhook deliveries, newest first, with attempts and outcomes",
    tag: 'Webhooks',
    auth: 'apiKey',
    params: ZAgentIdParams,
    query: ZPageQuery,
    response: ZWebhookDeliveryList,
    errors: [404],
    handle: async ({ params, query, req }) => {
      const actor = await agentActorOf(ctx, req)
      const agent = await getAgent(ctx, actor, params.agentId)
      const { deliveries, total } = await listDeliveries(ctx, {
        organizationId: agent.organizationId,
        agentId: agent.id,
        ...query,
      })
      const iso = (date: Date | null) => date?.toISOString() ?? null
      return {
        success: true as const,
        data: deliveries.map(
          ({ organizationId: _org, agentId: _agent, createdAt, lastAttemptAt, nextAttemptAt, ...rest }) => ({
            ...rest,
            createdAt: createdAt.toISOString(),
            lastAttemptAt: iso(lastAttemptAt),
            nextAttemptAt: iso(nextAttemptAt),
          }),
        ),
        pagination: paginationOf(query, total),
      }
    },
  })
}
