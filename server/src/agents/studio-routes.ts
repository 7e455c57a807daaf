import {
  ZAgentIdParams,
  ZOrgIdParams,
  ZProviderKeys,
  ZProviderKeysUpdate,
  ZStudioAgentUpdated,
  ZStudioUpdateAgent,
} from '@parley/shared'
import { auditByOf } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { studioActorOf } from '../http/authentication.ts'
import type { RouteTable } from '../http/route-table.ts'
import { listProviderKeys, updateProviderKeys } from '../orgs/index.ts'
import { toAgent } from './present.ts'
import { PROVIDER_KEYS_SETTINGS_PATH, updateAgent } from './service.ts'

export const registerStudioAgentRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'put',
    path: '/api/agents/{agentId}',
    summary: 'Update an agent (studio form); send only the fields to change',
    tag: 'Agents',
    auth: 'studio',
    params: ZAgentIdParams,
    body: ZStudioUpdateAgent,
    response: ZStudioAgentUpdated,
    errors: [403, 404],
    handle: async ({ params, body, req }) => {
      const actor = studioActorOf(req)
      const result = await updateAgent(ctx, actor, {
        agentId: params.agentId,
        changes: body,
        surface: 'studio',
        by: auditByOf(req),
      })
      const agent = toAgent(result.agent, ctx.catalogue)
      if (!result.usedDefaults) return { success: true as const, agent }
      return {
        success: true as const,
        agent,
        missingKeys: result.missingKeys,
        usedDefaults: true,
        finalModel: result.agent.model,
        finalStt: result.agent.stt,
        redirectUrl: PROVIDER_KEYS_SETTINGS_PATH,
      }
    },
  })

  routes.add({
    method: 'get',
    path: '/api/organizations/{orgId}/provider-keys',
    summary: 'Provider keys the organization has stored (last 4 characters only)',
    tag: 'Organizations',
    auth: 'studio',
    params: ZOrgIdParams,
    response: ZProviderKeys,
    errors: [404],
    handle: ({ params, req }) => listProviderKeys(ctx, studioActorOf(req), params.orgId),
  })

  routes.add({
    method: 'put',
    path: '/api/organizations/{orgId}/provider-keys',
    summary: 'Set provider keys (null removes one); stored encrypted, never returned in full',
    tag: 'Organizations',
    auth: 'studio',
    params: ZOrgIdParams,
    body: ZProviderKeysUpdate,
    response: ZProviderKeys,
    errors: [403, 404],
    handle: ({ params, body, req }) =>
      updateProviderKeys(ctx, studioActorOf(req), {
        organizationId: params.orgId,
        update: body,
        by: auditByOf(req),
      }),
  })
}
