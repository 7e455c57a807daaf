import {
  ZConversationDetail,
  ZConversationIdParams,
  ZConversationList,
  ZListConversationsQuery,
} from '@parley/shared'
import type { AppContext } from '../context.ts'
import { apiKeyActorOf } from '../http/authentication.ts'
import type { RouteTable } from '../http/route-table.ts'
import { getConversation, listConversations } from './service.ts'

const TAG = 'Conversations'

/** The owner's view of what visitors said: every chat conversation, typed and spoken. */
export const registerConversationRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'get',
    path: '/v1/conversations',
    summary: 'List the organization’s conversations, newest first, with filters and full-text search',
    tag: TAG,
    auth: 'apiKey',
    query: ZListConversationsQuery,
    response: ZConversationList,
    handle: ({ query, req }) =>
      listConversations(ctx, { organizationId: apiKeyActorOf(req).organizationId, query }),
  })

  routes.add({
    method: 'get',
    path: '/v1/conversations/{conversationId}',
    summary: 'One conversation with its messages (typed and spoken), its calls and its cost',
    tag: TAG,
    auth: 'apiKey',
    params: ZConversationIdParams,
    response: ZConversationDetail,
    errors: [404],
    handle: ({ params, req }) =>
      getConversation(ctx, {
        organizationId: apiKeyActorOf(req).organizationId,
        conversationId: params.conversationId,
      }),
  })
}
