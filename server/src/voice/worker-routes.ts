import {
  ZCallEndRequest,
  ZCallEndResponse,
  ZCallHandoffRequest,
  ZCallHandoffResponse,
  ZCallIdParams,
  ZCallOptOutRequest,
  ZCallOptOutResponse,
  ZCallSetupResponse,
  ZCallSipStatusRequest,
  ZCallSipStatusResponse,
  ZCallTransferRequest,
  ZCallTransferResponse,
  ZInboundCallOpenRequest,
  ZInboundCallOpenResponse,
} from '@parley/shared'
import { auditByOf } from '../audit/index.ts'
import {
  endCallByWorker,
  getCallSetup,
  handOffCall,
  openInboundCall,
  optOutOfCall,
  reportSipStatus,
  transferCall,
} from '../calls/index.ts'
import type { AppContext } from '../context.ts'
import type { RouteTable } from '../http/route-table.ts'

const TAG = 'Calls'

/** The voice agent worker's endpoints (Authorization: Bearer WORKER_TOKEN); see worker.ts. */
export const registerWorkerRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'post',
    path: '/v1/calls/inbound',
    summary:
      'Open an inbound call the worker took (a caller rang a number with an inbound agent): the call record, its hold and its dispatch metadata, or a refusal the agent says before hanging up (the worker only)',
    tag: TAG,
    auth: 'worker',
    body: ZInboundCallOpenRequest,
    response: ZInboundCallOpenResponse,
    errors: [400, 404],
    handle: ({ body }) => openInboundCall(ctx, body),
  })

  routes.add({
    method: 'get',
    path: '/v1/calls/{callId}/setup',
    summary:
      'What the worker runs a call with: provider endpoints and keys, function headers (the worker only)',
    tag: TAG,
    auth: 'worker',
    params: ZCallIdParams,
    response: ZCallSetupResponse,
    errors: [404, 409],
    handle: ({ params }) => getCallSetup(ctx, params.callId),
  })

  routes.add({
    method: 'post',
    path: '/v1/calls/{callId}/handoff',
    summary: 'Hand the call to another voice agent of the live agent’s handoffAgentIds (the worker only)',
    tag: TAG,
    auth: 'worker',
    params: ZCallIdParams,
    body: ZCallHandoffRequest,
    response: ZCallHandoffResponse,
    errors: [400, 404, 409],
    handle: ({ params, body }) => handOffCall(ctx, { callId: params.callId, agentId: body.agentId }),
  })

  routes.add({
    method: 'post',
    path: '/v1/calls/{callId}/end',
    summary: 'End the call and delete its room, which hangs up a phone callee (the worker only)',
    tag: TAG,
    auth: 'worker',
    params: ZCallIdParams,
    body: ZCallEndRequest,
    response: ZCallEndResponse,
    errors: [400, 404],
    handle: ({ params, body }) =>
      endCallByWorker(ctx, { callId: params.callId, reason: body.reason, amdVerdict: body.amdVerdict }),
  })

  routes.add({
    method: 'post',
    path: '/v1/calls/{callId}/sip-status',
    summary:
      "Report the outbound callee's sip.callStatus as the worker sees it in the room: recorded once each, in order, as the call's dialing, ringing or answered event (the worker only)",
    tag: TAG,
    auth: 'worker',
    params: ZCallIdParams,
    body: ZCallSipStatusRequest,
    response: ZCallSipStatusResponse,
    errors: [400, 404],
    handle: ({ params, body }) => reportSipStatus(ctx, { callId: params.callId, status: body.status }),
  })

  routes.add({
    method: 'post',
    path: '/v1/calls/{callId}/opt-out',
    summary:
      "opt_out: put the call's other party on the organization's do-not-call list, the call as its source (the worker only)",
    tag: TAG,
    auth: 'worker',
    params: ZCallIdParams,
    body: ZCallOptOutRequest,
    response: ZCallOptOutResponse,
    errors: [400, 404, 409],
    handle: ({ params, req }) => optOutOfCall(ctx, { callId: params.callId, by: auditByOf(req) }),
  })

  routes.add({
    method: 'post',
    path: '/v1/calls/{callId}/transfer',
    summary:
      'Transfer the call to a person of the live agent’s transferDestinations (cold: REFER or dial-in, done here; warm: the line to dial), or report how a warm transfer ended (the worker only)',
    tag: TAG,
    auth: 'worker',
    params: ZCallIdParams,
    body: ZCallTransferRequest,
    response: ZCallTransferResponse,
    errors: [400, 404, 409, 503],
    handle: ({ params, body }) => transferCall(ctx, { callId: params.callId, body }),
  })
}
