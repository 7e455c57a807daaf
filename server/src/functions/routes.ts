import {
  FUNCTION_TESTS_PER_MINUTE,
  ZCreateFunction,
  ZCustomFunction,
  ZDeleted,
  ZDeleteFunctionQuery,
  ZFunctionAgentParams,
  ZFunctionList,
  ZFunctionsQuery,
  ZFunctionTestParams,
  ZFunctionTestRequest,
  ZFunctionTestResult,
  ZUpdateFunction,
} from '@parley/shared'
import { agentActorOf } from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { apiKeyActorOf } from '../http/authentication.ts'
import { limitRequests } from '../http/rate-limit.ts'
import type { RouteTable } from '../http/route-table.ts'
import { idempotent } from '../idempotency/middleware.ts'
import * as functions from './service.ts'
import { testFunction } from './test-call.ts'

const tag = 'Custom functions'

export const registerFunctionRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'get',
    path: '/api/custom-functions',
    summary:
      'List custom functions: ?agentId (full), none (all of your agents), ?organizationId (brief, with role)',
    tag,
    auth: 'apiKey',
    query: ZFunctionsQuery,
    response: ZFunctionList,
    errors: [404],
    handle: async ({ query, req }) => functions.listFunctions(ctx, await agentActorOf(ctx, req), query),
  })

  routes.add({
    method: 'post',
    path: '/api/custom-functions/{agentId}',
    summary: 'Create a custom function for an agent (owners and admins)',
    tag,
    auth: 'apiKey',
    params: ZFunctionAgentParams,
    body: ZCreateFunction,
    status: 201,
    before: [
      idempotent({ ctx, scopeOf: (req) => (req.actor?.kind === 'apiKey' ? req.actor.organizationId : '') }),
    ],
    response: ZCustomFunction,
    errors: [403, 404, 409],
    handle: async ({ params, body, req }) =>
      functions.createFunction(ctx, await agentActorOf(ctx, req), { agentId: params.agentId, input: body }),
  })

  routes.add({
    method: 'put',
    path: '/api/custom-functions/{agentId}',
    summary: 'Update a custom function: its id plus the fields to change',
    tag,
    auth: 'apiKey',
    params: ZFunctionAgentParams,
    body: ZUpdateFunction,
    response: ZCustomFunction,
    errors: [403, 404, 409],
    handle: async ({ params, body, req }) =>
      functions.updateFunction(ctx, await agentActorOf(ctx, req), { agentId: params.agentId, input: body }),
  })

  routes.add({
    method: 'delete',
    path: '/api/custom-functions/{agentId}',
    summary:
      "Delete a custom function (?functionId); it is also removed from the agent's enabledCustomFunctions",
    tag,
    auth: 'apiKey',
    params: ZFunctionAgentParams,
    query: ZDeleteFunctionQuery,
    response: ZDeleted,
    errors: [403, 404],
    handle: async ({ params, query, req }) =>
      functions.deleteFunction(ctx, await agentActorOf(ctx, req), {
        agentId: params.agentId,
        functionId: query.functionId,
      }),
  })
  routes.add({
    method: 'post',
    path: '/api/custom-functions/{agentId}/{functionId}/test',
    summary:
      'Call a custom function once with sample arguments (owners and admins), as chat would: its answer or the error in words. No model is asked, so no credits are used',
    tag,
    auth: 'apiKey',
    params: ZFunctionTestParams,
    body: ZFunctionTestRequest,
    before: [
      limitRequests({
        rateLimits: ctx.rateLimits,
        policyOf: () => ({ name: 'function-test', points: FUNCTION_TESTS_PER_MINUTE }),
        keyOf: (req) => `organization:${apiKeyActorOf(req).organizationId}`,
      }),
    ],
    response: ZFunctionTestResult,
    errors: [403, 404, 429],
    handle: async ({ params, body, req }) =>
      testFunction(ctx, await agentActorOf(ctx, req), {
        agentId: params.agentId,
        functionId: params.functionId,
        args: body.arguments,
      }),
  })
}
