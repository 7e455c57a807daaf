import {
  webhookEventSchemas,
  ZAgentIdParams,
  ZPageQuery,
  ZWebhookDeliveryAnswer,
  ZWebhookDeliveryList,
  ZWebhookDeliveryParams,
} from '@parley/shared'
import { agentActorOf, getAgent } from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { paginationOf } from '../http/pagination.ts'
import type { RouteTable } from '../http/route-table.ts'
import { findDelivery, listDeliveries, sendNow } from './service.ts'
import type { DeliveryRow } from './store.ts'

const iso = (date: Date | null) => date?.toISOString() ?? null
const presentDelivery = ({
  organizationId: _org,
  agentId: _agent,
  createdAt,
  lastAttemptAt,
  nextAttemptAt,
  ...rest
}: DeliveryRow) => ({
  ...rest,
  createdAt: createdAt.toISOString(),
  lastAttemptAt: iso(lastAttemptAt),
  nextAttemptAt: iso(nextAttemptAt),
})

export const registerWebhookRoutes = (routes: RouteTable, ctx: AppContext) => {
  for (const { schema, summary } of webhookEventSchemas)
    routes.addWebhook({ event: schema.shape.event.value, summary, payload: schema })

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
      return {
        success: true as const,
        data: deliveries.map(presentDelivery),
        pagination: paginationOf(query, total),
      }
    },
  })

  routes.add({
    method: 'post',
    path: '/v1/agents/{agentId}/webhook/test',
    summary: 'Send the agent’s webhook a signed ping now, once, and answer how its endpoint took it',
    tag: 'Webhooks',
    auth: 'apiKey',
    params: ZAgentIdParams,
    response: ZWebhookDeliveryAnswer,
    errors: [400, 404],
    handle: async ({ params, req }) => {
      const agent = await getAgent(ctx, await agentActorOf(ctx, req), params.agentId)
      if (!agent.webhookUrl) throw AppError.badRequest('webhookUrl: the agent has no webhook to test')
      const delivery = await sendNow(
        ctx,
        {
          organizationId: agent.organizationId,
          agentId: agent.id,
          url: agent.webhookUrl,
          event: 'ping',
          data: { agent_id: agent.id, agent_name: agent.name, message: 'A test ping from Parley' },
        },
        { retries: false },
      )
      return { success: true as const, data: presentDelivery(delivery) }
    },
  })

  routes.add({
    method: 'post',
    path: '/v1/agents/{agentId}/webhook-deliveries/{deliveryId}/redeliver',
    summary: 'Send a delivery’s event again, as a new delivery to the agent’s webhook as it is now',
    tag: 'Webhooks',
    auth: 'apiKey',
    params: ZWebhookDeliveryParams,
    response: ZWebhookDeliveryAnswer,
    errors: [400, 404],
    handle: async ({ params, req }) => {
      const agent = await getAgent(ctx, await agentActorOf(ctx, req), params.agentId)
      const original = await findDelivery(ctx.db, params.deliveryId)
      if (!original || original.agentId !== agent.id || original.organizationId !== agent.organizationId)
        throw AppError.notFound('delivery')
      if (!agent.webhookUrl) throw AppError.badRequest('webhookUrl: the agent has no webhook to deliver to')
      const delivery = await sendNow(
        ctx,
        {
          organizationId: agent.organizationId,
          agentId: agent.id,
          url: agent.webhookUrl,
          event: original.event,
          data: {},
          payload: original.payload,
        },
        { retries: true },
      )
      return { success: true as const, data: presentDelivery(delivery) }
    },
  })
}
