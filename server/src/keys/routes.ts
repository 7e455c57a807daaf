import {
  ZApiKey,
  ZApiKeyIdParams,
  ZApiKeyList,
  ZCreateApiKey,
  ZCreatedApiKey,
  ZUpdateApiKey,
} from '@parley/shared'
import { auditByOf } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { studioActorOf } from '../http/authentication.ts'
import type { RouteTable } from '../http/route-table.ts'
import * as keys from './service.ts'

const tag = 'API keys'

/** Studio routes; the active organization of the session is the scope of every key id. */
export const registerKeyRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'get',
    path: '/api/api-keys',
    summary: 'API keys of the active organization (prefixes only; every role)',
    tag,
    auth: 'studio',
    response: ZApiKeyList,
    handle: async ({ req }) => ({ apiKeys: await keys.listKeys(ctx, studioActorOf(req)) }),
  })

  routes.add({
    method: 'post',
    path: '/api/api-keys',
    summary: 'Create a key (owners); the full key is in this response only',
    tag,
    auth: 'studio',
    body: ZCreateApiKey,
    status: 201,
    response: ZCreatedApiKey,
    errors: [403],
    handle: ({ body, req }) => keys.createKeyForOwner(ctx, studioActorOf(req), body, auditByOf(req)),
  })

  routes.add({
    method: 'patch',
    path: '/api/api-keys/{id}',
    summary: 'Rename a key or change its allowed domains (owners; reaches every instance within 60 s)',
    tag,
    auth: 'studio',
    params: ZApiKeyIdParams,
    body: ZUpdateApiKey,
    response: ZApiKey,
    errors: [403, 404, 409],
    handle: ({ params, body, req }) =>
      keys.updateKey(ctx, studioActorOf(req), params.id, body, auditByOf(req)),
  })

  const actions = [
    ['revoke', 'Revoke a key for good; its open chat streams end at once (owners)', keys.revokeKey],
    ['disable', 'Disable a key until it is enabled again (owners)', keys.disableKey],
    ['enable', 'Enable a disabled key; a revoked key answers 409 (owners)', keys.enableKey],
  ] as const
  for (const [action, summary, run] of actions) {
    routes.add({
      method: 'post',
      path: `/api/api-keys/{id}/${action}`,
      summary,
      tag,
      auth: 'studio',
      params: ZApiKeyIdParams,
      response: ZApiKey,
      errors: [403, 404, 409],
      handle: ({ params, req }) => run(ctx, studioActorOf(req), params.id, auditByOf(req)),
    })
  }
}
