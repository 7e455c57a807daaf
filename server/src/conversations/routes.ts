import {
  ZAnalytics,
  ZAnalyticsQuery,
  ZCallIdParams,
  ZConversationDetail,
  ZConversationIdParams,
  ZConversationList,
  ZDeletionList,
  ZListConversationsQuery,
  ZRecordDeleted,
} from '@parley/shared'
import { auditByOf } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { apiKeyActorOf } from '../http/authentication.ts'
import type { RouteTable } from '../http/route-table.ts'
import { getAnalytics } from './analytics.ts'
import { deleteCall, deleteConversation, listDeletions } from './deletion.ts'
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

  routes.add({
    method: 'delete',
    path: '/v1/conversations/{conversationId}',
    summary: 'Delete a conversation and everything said in it (privacy requests); logged in /v1/deletions',
    tag: TAG,
    auth: 'apiKey',
    params: ZConversationIdParams,
    response: ZRecordDeleted,
    errors: [404, 409],
    handle: ({ params, req }) =>
      deleteConversation(ctx, {
        actor: apiKeyActorOf(req),
        by: auditByOf(req),
        conversationId: params.conversationId,
      }),
  })

  routes.add({
    method: 'delete',
    path: '/v1/calls/{callId}',
    summary: 'Delete an ended call with its transcript (privacy requests); logged in /v1/deletions',
    tag: 'Calls',
    auth: 'apiKey',
    params: ZCallIdParams,
    response: ZRecordDeleted,
    errors: [404, 409],
    handle: ({ params, req }) =>
      deleteCall(ctx, { actor: apiKeyActorOf(req), by: auditByOf(req), callId: params.callId }),
  })

  routes.add({
    method: 'get',
    path: '/v1/analytics',
    summary:
      'Per agent and per day (default: the last 30 days): conversations, messages, calls, minutes, cost, outcomes, time to first reply',
    tag: TAG,
    auth: 'apiKey',
    query: ZAnalyticsQuery,
    response: ZAnalytics,
    handle: ({ query, req }) =>
      getAnalytics(ctx, { organizationId: apiKeyActorOf(req).organizationId, query }),
  })

  routes.add({
    method: 'get',
    path: '/v1/deletions',
    summary: 'The organization’s log of privacy deletions: what went, when and which key asked',
    tag: TAG,
    auth: 'apiKey',
    response: ZDeletionList,
    handle: ({ req }) => listDeletions(ctx, apiKeyActorOf(req).organizationId),
  })
}
