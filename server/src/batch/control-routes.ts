import { ZBatchJobIdParams, ZBatchJobResponse, ZBatchRetryFailedResponse } from '@parley/shared'
import { z } from 'zod'
import type { AppContext } from '../context.ts'
import { apiKeyActorOf } from '../http/authentication.ts'
import type { RouteTable } from '../http/route-table.ts'
import { pauseBatchJob, resumeBatchJob, retryFailedContacts } from './control.ts'
import { streamBatchProgress } from './progress-stream.ts'

const tag = 'Batch calling'

/** Pause, resume, retry-failed and the progress stream (beyond the spec; DESIGN.md §4). */
export const registerBatchControlRoutes = (routes: RouteTable, ctx: AppContext) => {
  const refOf = (req: Parameters<typeof apiKeyActorOf>[0], batchJobId: string) => ({
    organizationId: apiKeyActorOf(req).organizationId,
    batchJobId,
  })

  routes.add({
    method: 'post',
    path: '/batch/{batchJobId}/pause',
    summary: 'Pause a batch job: no new dials; calls in flight finish',
    tag,
    auth: 'apiKey',
    params: ZBatchJobIdParams,
    response: ZBatchJobResponse,
    errors: [404, 409],
    handle: ({ params, req }) => pauseBatchJob(ctx, refOf(req, params.batchJobId)),
  })

  routes.add({
    method: 'post',
    path: '/batch/{batchJobId}/resume',
    summary: 'Resume a paused batch job (scheduled again when its start is still ahead)',
    tag,
    auth: 'apiKey',
    params: ZBatchJobIdParams,
    response: ZBatchJobResponse,
    errors: [404, 409],
    handle: ({ params, req }) => resumeBatchJob(ctx, refOf(req, params.batchJobId)),
  })

  routes.add({
    method: 'post',
    path: '/batch/{batchJobId}/retry-failed',
    summary: 'Re-queue the failed contacts that have attempts left (a finished job runs again)',
    tag,
    auth: 'apiKey',
    params: ZBatchJobIdParams,
    response: ZBatchRetryFailedResponse,
    errors: [404, 409],
    handle: ({ params, req }) => retryFailedContacts(ctx, refOf(req, params.batchJobId)),
  })

  routes.add({
    method: 'get',
    path: '/batch/{batchJobId}/events',
    summary: 'Progress of a batch job as Server-Sent Events: counters after every contact change',
    tag,
    auth: 'apiKey',
    params: ZBatchJobIdParams,
    response: z
      .string()
      .meta({ description: 'text/event-stream of `progress` and a final `end` (BatchProgressEvent)' }),
    responseContentType: 'text/event-stream',
    errors: [404],
    handle: async ({ params, req, res }) => {
      const actor = apiKeyActorOf(req)
      await streamBatchProgress(ctx, {
        organizationId: actor.organizationId,
        batchJobId: params.batchJobId,
        keyId: actor.keyId,
        res,
      })
      return ''
    },
  })
}
