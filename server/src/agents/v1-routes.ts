import {
  ZAgentCreated,
  ZAgentDeleted,
  ZAgentIdParams,
  ZAgentList,
  ZAgentUpdated,
  ZAgentV1Response,
  ZCatalogueResponse,
  ZCreateAgentV1,
  ZListAgentsQuery,
  ZPatchAgentV1,
  ZUpdateAgentV1,
  ZWebhookSecret,
} from '@parley/shared'
import { auditByOf } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import type { RouteTable } from '../http/route-table.ts'
import { idempotent } from '../idempotency/middleware.ts'
import { agentActorOf } from './actor.ts'
import { catalogueFor } from './catalogue.ts'
import { toAgent, toAgentV1, toListItem } from './present.ts'
import * as agents from './service.ts'

const tag = 'Agents'

export const registerV1AgentRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'get',
    path: '/v1/catalogue',
    summary: 'Models, STT and TTS providers, voices, realtime providers and built-in functions on offer',
    tag,
    auth: 'apiKey',
    response: ZCatalogueResponse,
    handle: async ({ req }) => ({
      success: true as const,
      data: await catalogueFor(ctx, (await agentActorOf(ctx, req)).organizationId),
    }),
  })

  routes.add({
    method: 'get',
    path: '/v1/agents',
    summary: 'List the agents visible to the key',
    tag,
    auth: 'apiKey',
    query: ZListAgentsQuery,
    response: ZAgentList,
    handle: async ({ query, req }) => {
      const { agents: rows, pagination } = await agents.listAgents(ctx, await agentActorOf(ctx, req), query)
      return { success: true as const, data: rows.map(toListItem), pagination }
    },
  })

  routes.add({
    method: 'post',
    path: '/v1/agents',
    summary: 'Create an agent (inactive until activated); the webhook secret is shown only here',
    tag,
    auth: 'apiKey',
    body: ZCreateAgentV1,
    status: 201,
    before: [
      idempotent({ ctx, scopeOf: (req) => (req.actor?.kind === 'apiKey' ? req.actor.organizationId : '') }),
    ],
    response: ZAgentCreated,
    errors: [403, 409],
    handle: async ({ body, req }) => {
      const { agent, webhookSecret } = await agents.createAgent(
        ctx,
        await agentActorOf(ctx, req),
        body,
        auditByOf(req),
      )
      const { id, name, agentArchitecture, active, createdAt } = toAgentV1(agent)
      return {
        success: true as const,
        data: { id, name, agentArchitecture, active, createdAt, webhookSecret },
      }
    },
  })

  routes.add({
    method: 'get',
    path: '/v1/agents/{agentId}',
    summary: 'Get an agent',
    tag,
    auth: 'apiKey',
    params: ZAgentIdParams,
    response: ZAgentV1Response,
    errors: [404],
    handle: async ({ params, req }) => ({
      success: true as const,
      data: toAgentV1(await agents.getAgent(ctx, await agentActorOf(ctx, req), params.agentId)),
    }),
  })

  routes.add({
    method: 'patch',
    path: '/v1/agents/{agentId}',
    summary: 'Change any subset of fields (create vocabulary); answers the updated agent',
    tag,
    auth: 'apiKey',
    params: ZAgentIdParams,
    body: ZPatchAgentV1,
    response: ZAgentV1Response,
    errors: [403, 404],
    handle: async ({ params, body, req }) => {
      const changes = agents.changesFromPatch(params.agentId, body)
      const { agent } = await agents.updateAgent(ctx, await agentActorOf(ctx, req), {
        agentId: params.agentId,
        changes,
        surface: 'v1',
        by: auditByOf(req),
      })
      return { success: true as const, data: toAgentV1(agent) }
    },
  })

  routes.add({
    method: 'put',
    path: '/v1/agents/{agentId}',
    summary: 'Update an agent (studio vocabulary, v1 bounds)',
    tag,
    auth: 'apiKey',
    params: ZAgentIdParams,
    body: ZUpdateAgentV1,
    response: ZAgentUpdated,
    errors: [403, 404],
    handle: async ({ params, body, req }) => {
      const { agent } = await agents.updateAgent(ctx, await agentActorOf(ctx, req), {
        agentId: params.agentId,
        changes: body,
        surface: 'v1',
        by: auditByOf(req),
      })
      return { success: true as const, data: { agent: toAgent(agent, ctx.catalogue) } }
    },
  })

  routes.add({
    method: 'delete',
    path: '/v1/agents/{agentId}',
    summary: 'Delete an agent permanently; conversations, call logs and transcripts are kept for billing',
    tag,
    auth: 'apiKey',
    params: ZAgentIdParams,
    response: ZAgentDeleted,
    errors: [403, 404],
    handle: async ({ params, req }) => ({
      success: true as const,
      data: await agents.deleteAgent(ctx, await agentActorOf(ctx, req), params.agentId, auditByOf(req)),
    }),
  })

  routes.add({
    method: 'post',
    path: '/v1/agents/{agentId}/webhook-secret',
    summary: 'Rotate the webhook signing secret; the new one is shown only here',
    tag,
    auth: 'apiKey',
    params: ZAgentIdParams,
    response: ZWebhookSecret,
    errors: [403, 404],
    handle: async ({ params, req }) => ({
      success: true as const,
      data: await agents.rotateWebhookSecret(
        ctx,
        await agentActorOf(ctx, req),
        params.agentId,
        auditByOf(req),
      ),
    }),
  })
}
