import {
  ZAppendTranscript,
  ZCallDetail,
  ZCallIdParams,
  ZCallList,
  ZListCallsQuery,
  ZTranscriptAppended,
} from '@parley/shared'
import type { AppContext } from '../context.ts'
import { apiKeyActorOf } from '../http/authentication.ts'
import type { RouteTable } from '../http/route-table.ts'
import { appendCallTranscript, getCall, listCalls } from './records.ts'

const TAG = 'Calls'

export const registerCallRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'get',
    path: '/v1/calls',
    summary: 'List the organization’s voice sessions and outbound calls, newest first',
    tag: TAG,
    auth: 'apiKey',
    query: ZListCallsQuery,
    response: ZCallList,
    handle: ({ query, req }) => listCalls(ctx, apiKeyActorOf(req).organizationId, query),
  })

  routes.add({
    method: 'get',
    path: '/v1/calls/{callId}',
    summary: 'One call with its transcript lines',
    tag: TAG,
    auth: 'apiKey',
    params: ZCallIdParams,
    response: ZCallDetail,
    errors: [404],
    handle: ({ params, req }) =>
      getCall(ctx, { organizationId: apiKeyActorOf(req).organizationId, callId: params.callId }),
  })

  routes.add({
    method: 'post',
    path: '/v1/calls/{callId}/transcript',
    summary: 'Append transcript lines (the voice agent worker, with WORKER_TOKEN)',
    tag: TAG,
    auth: 'worker',
    params: ZCallIdParams,
    body: ZAppendTranscript,
    response: ZTranscriptAppended,
    errors: [404],
    handle: ({ params, body }) => appendCallTranscript(ctx, params.callId, body),
  })
}
