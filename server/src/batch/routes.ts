import {
  ZBatchContactList,
  ZBatchCreated,
  ZBatchCreateFields,
  ZBatchCreateJson,
  ZBatchJobIdParams,
  ZBatchJobList,
  ZBatchJobResponse,
  ZBatchPreviewResponse,
  ZListBatchContactsQuery,
  ZListBatchJobsQuery,
} from '@parley/shared'
import { z } from 'zod'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { apiKeyActorOf } from '../http/authentication.ts'
import type { RouteTable } from '../http/route-table.ts'
import { idempotent } from '../idempotency/middleware.ts'
import { type ContactSource, createBatchJob } from './create-service.ts'
import { previewBatchJob } from './preview-service.ts'
import * as batch from './service.ts'
import { acceptCsvOrJson, type CsvUpload, uploadedCsvOf, uploadFingerprintOf } from './upload.ts'

const tag = 'Batch calling'

/** Both modes share the fields; `contacts` is present in JSON mode only. */
const ZBatchCreateBody = ZBatchCreateJson.partial({ contacts: true })
const ZBatchCreateForm = ZBatchCreateFields.extend({
  file: z
    .string()
    .meta({ format: 'binary', description: 'CSV with a phone column; other columns are custom fields' }),
  callingWindow: z
    .string()
    .optional()
    .meta({ description: 'JSON: {"start":"09:00","end":"17:00","days":["mon"]}' }),
}).meta({ id: 'BatchCreateForm' })

const sourceOf = (file: CsvUpload | undefined, contacts: ContactSource | undefined): ContactSource => {
  if (file) return { kind: 'csv', records: file.records }
  if (contacts) return contacts
  throw AppError.badRequest('Send a CSV file (multipart field "file") or a JSON contacts array')
}

export const registerBatchRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'post',
    path: '/batch/create',
    summary: 'Create a batch calling job from a CSV upload (multipart) or a JSON contacts array',
    tag,
    auth: 'apiKey',
    body: ZBatchCreateBody,
    multipartBody: ZBatchCreateForm,
    status: 201,
    before: [
      acceptCsvOrJson,
      idempotent({
        ctx,
        scopeOf: (req) => (req.actor?.kind === 'apiKey' ? req.actor.organizationId : ''),
        fingerprintOf: uploadFingerprintOf,
      }),
    ],
    response: ZBatchCreated,
    errors: [404, 409, 413, 415],
    handle: async ({ body, req }) => {
      const { contacts, ...fields } = body
      const source = sourceOf(uploadedCsvOf(req), contacts ? { kind: 'json', contacts } : undefined)
      return createBatchJob(ctx, apiKeyActorOf(req), { fields, source })
    },
  })

  routes.add({
    method: 'post',
    path: '/batch/preview',
    summary:
      'What /batch/create would do with the same request, creating nothing: the first contacts, ' +
      'the skipped rows and why, the estimate against the balance, the schedule as read',
    tag,
    auth: 'apiKey',
    body: ZBatchCreateBody,
    multipartBody: ZBatchCreateForm,
    before: [acceptCsvOrJson],
    response: ZBatchPreviewResponse,
    errors: [404, 413, 415],
    handle: async ({ body, req }) => {
      const { contacts, ...fields } = body
      const source = sourceOf(uploadedCsvOf(req), contacts ? { kind: 'json', contacts } : undefined)
      return {
        success: true as const,
        data: await previewBatchJob(ctx, apiKeyActorOf(req), { fields, source }),
      }
    },
  })

  routes.add({
    method: 'get',
    path: '/batch',
    summary: "List the organization's batch jobs, newest first, optionally by status",
    tag,
    auth: 'apiKey',
    query: ZListBatchJobsQuery,
    response: ZBatchJobList,
    handle: async ({ query, req }) => ({
      success: true as const,
      ...(await batch.listBatchJobs(ctx, apiKeyActorOf(req).organizationId, query)),
    }),
  })

  routes.add({
    method: 'get',
    path: '/batch/{batchJobId}',
    summary: 'Get a batch job with its contact counters',
    tag,
    auth: 'apiKey',
    params: ZBatchJobIdParams,
    response: ZBatchJobResponse,
    errors: [404],
    handle: async ({ params, req }) => ({
      success: true as const,
      data: await batch.getBatchJob(ctx, apiKeyActorOf(req).organizationId, params.batchJobId),
    }),
  })

  routes.add({
    method: 'get',
    path: '/batch/{batchJobId}/contacts',
    summary: "A batch job's contacts in file order, optionally by status",
    tag,
    auth: 'apiKey',
    params: ZBatchJobIdParams,
    query: ZListBatchContactsQuery,
    response: ZBatchContactList,
    errors: [404],
    handle: async ({ params, query, req }) => ({
      success: true as const,
      ...(await batch.listBatchContacts(ctx, apiKeyActorOf(req).organizationId, {
        batchJobId: params.batchJobId,
        query,
      })),
    }),
  })

  routes.add({
    method: 'post',
    path: '/batch/{batchJobId}/cancel',
    summary: 'Cancel a job: no new dials; calls in flight finish',
    tag,
    auth: 'apiKey',
    params: ZBatchJobIdParams,
    response: ZBatchJobResponse,
    errors: [404, 409],
    handle: async ({ params, req }) => ({
      success: true as const,
      data: await batch.cancelBatchJob(ctx, apiKeyActorOf(req).organizationId, params.batchJobId),
    }),
  })
}
