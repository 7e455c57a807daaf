import {
  ZAgentDraftResponse,
  ZAgentIdParams,
  ZAgentVersionDiffQuery,
  ZAgentVersionDiffResponse,
  ZAgentVersionList,
  ZAgentVersionParams,
  ZAgentVersionResponse,
  ZAgentVersionsQuery,
  ZPublishAgent,
} from '@parley/shared'
import { auditByOf } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import type { RouteTable } from '../http/route-table.ts'
import { agentActorOf } from './actor.ts'
import * as versions from './versions.ts'

const tag = 'Agent versions'

export const registerAgentVersionRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'get',
    path: '/v1/agents/{agentId}/versions',
    summary: 'The agent’s published versions, newest first (the first is the one sessions run on)',
    tag,
    auth: 'apiKey',
    params: ZAgentIdParams,
    query: ZAgentVersionsQuery,
    response: ZAgentVersionList,
    errors: [404],
    handle: async ({ params, query, req }) => ({
      success: true as const,
      ...(await versions.listAgentVersions(ctx, await agentActorOf(ctx, req), {
        agentId: params.agentId,
        ...query,
      })),
    }),
  })

  routes.add({
    method: 'get',
    path: '/v1/agents/{agentId}/versions/{version}',
    summary: 'One version: every setting and the custom functions’ definitions as published',
    tag,
    auth: 'apiKey',
    params: ZAgentVersionParams,
    response: ZAgentVersionResponse,
    errors: [404],
    handle: async ({ params, req }) => ({
      success: true as const,
      data: await versions.getAgentVersion(ctx, await agentActorOf(ctx, req), params.agentId, params.version),
    }),
  })

  routes.add({
    method: 'get',
    path: '/v1/agents/{agentId}/versions/{version}/diff',
    summary: 'What changed from `against` (default: the version before) to this version',
    tag,
    auth: 'apiKey',
    params: ZAgentVersionParams,
    query: ZAgentVersionDiffQuery,
    response: ZAgentVersionDiffResponse,
    errors: [404],
    handle: async ({ params, query, req }) => ({
      success: true as const,
      data: await versions.diffAgentVersions(ctx, await agentActorOf(ctx, req), {
        agentId: params.agentId,
        number: params.version,
        against: query.against,
      }),
    }),
  })

  routes.add({
    method: 'get',
    path: '/v1/agents/{agentId}/draft',
    summary: 'The draft (what the studio edits) and what publishing it would change',
    tag,
    auth: 'apiKey',
    params: ZAgentIdParams,
    response: ZAgentDraftResponse,
    errors: [404],
    handle: async ({ params, req }) => ({
      success: true as const,
      data: await versions.getAgentDraft(ctx, await agentActorOf(ctx, req), params.agentId),
    }),
  })

  routes.add({
    method: 'post',
    path: '/v1/agents/{agentId}/publish',
    summary: 'Publish the draft as the next version, with a note; sessions run on it from now on',
    tag,
    auth: 'apiKey',
    params: ZAgentIdParams,
    body: ZPublishAgent,
    status: 201,
    response: ZAgentVersionResponse,
    errors: [400, 403, 404, 409],
    handle: async ({ params, body, req }) => ({
      success: true as const,
      data: await versions.publishAgent(ctx, await agentActorOf(ctx, req), {
        agentId: params.agentId,
        note: body.note,
        by: auditByOf(req),
      }),
    }),
  })

  routes.add({
    method: 'post',
    path: '/v1/agents/{agentId}/versions/{version}/restore',
    summary: 'Copy a version’s settings into the draft (publish to make it live)',
    tag,
    auth: 'apiKey',
    params: ZAgentVersionParams,
    response: ZAgentDraftResponse,
    errors: [403, 404],
    handle: async ({ params, req }) => ({
      success: true as const,
      data: await versions.restoreAgentVersion(ctx, await agentActorOf(ctx, req), {
        agentId: params.agentId,
        number: params.version,
        by: auditByOf(req),
      }),
    }),
  })
}
