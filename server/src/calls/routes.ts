import {
  ZAppendTranscript,
  ZCallDetail,
  ZCallIdParams,
  ZCallList,
  ZCallResponse,
  ZCreateCall,
  ZListCallsQuery,
  ZTranscriptAppended,
} from '@parley/shared'
import { z } from 'zod'
import type { AppContext } from '../context.ts'
import { apiKeyActorOf } from '../http/authentication.ts'
import type { RouteTable } from '../http/route-table.ts'
import { idempotent } from '../idempotency/middleware.ts'
import { streamCallEvents } from './events.ts'
import { appendCallTranscript, getCall, listCalls } from './records.ts'
import { endRequestedCall, placeRequestedCall } from './requested-call.ts'

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
    method: 'post',
    path: '/v1/calls',
    summary:
      'Place one outbound call now from one of the organization’s numbers (its events: GET /v1/calls/{callId}/events)',
    tag: TAG,
    auth: 'apiKey',
    body: ZCreateCall,
    status: 201,
    before: [
      idempotent({ ctx, scopeOf: (req) => (req.actor?.kind === 'apiKey' ? req.actor.organizationId : '') }),
    ],
    response: ZCallResponse,
    errors: [400, 402, 403, 404, 409, 500],
    handle: ({ body, req }) => {
      const actor = apiKeyActorOf(req)
      return placeRequestedCall(ctx, { organizationId: actor.organizationId, keyId: actor.keyId }, body)
    },
  })

  routes.add({
    method: 'get',
    path: '/v1/calls/{callId}/events',
    summary:
      'What happens on a call as Server-Sent Events (queued, dialing, ringing, answered, transcript, transferred, ended); resumes after Last-Event-ID',
    tag: TAG,
    auth: 'apiKey',
    params: ZCallIdParams,
    response: z.string().meta({
      description:
        'text/event-stream of CallEvent: `id:` is the event id (send it back as Last-Event-ID to resume), `event:` its type; the stream ends after `ended`',
    }),
    responseContentType: 'text/event-stream',
    errors: [404],
    handle: async ({ params, req, res }) => {
      const actor = apiKeyActorOf(req)
      await streamCallEvents(ctx, {
        organizationId: actor.organizationId,
        callId: params.callId,
        keyId: actor.keyId,
        lastEventId: req.get('last-event-id') || undefined,
        res,
      })
      return ''
    },
  })

  routes.add({
    method: 'post',
    path: '/v1/calls/{callId}/hangup',
    summary: 'Hang up a call in progress: its room is deleted and the call ends, billed to now',
    tag: TAG,
    auth: 'apiKey',
    params: ZCallIdParams,
    response: ZCallResponse,
    errors: [404, 409, 500],
    handle: ({ params, req }) =>
      endRequestedCall(ctx, { organizationId: apiKeyActorOf(req).organizationId, callId: params.callId }),
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
