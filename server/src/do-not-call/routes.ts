import {
  ZAddDoNotCall,
  ZDoNotCallDeleted,
  ZDoNotCallImported,
  ZDoNotCallImportJson,
  ZDoNotCallList,
  ZDoNotCallParams,
  ZDoNotCallResponse,
  ZListDoNotCallQuery,
} from '@parley/shared'
import { z } from 'zod'
import { auditByOf } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { apiKeyActorOf } from '../http/authentication.ts'
import { csvOrJsonBody, uploadedCsvOf, uploadFingerprintOf } from '../http/csv-upload.ts'
import type { RouteTable } from '../http/route-table.ts'
import { idempotent } from '../idempotency/middleware.ts'
import * as doNotCall from './service.ts'

const tag = 'Do not call'

const ZImportForm = z
  .object({
    file: z.string().meta({
      format: 'binary',
      description:
        'CSV with a phone column (phone, phoneNumber, phone_number or number); other columns are ignored',
    }),
  })
  .meta({ id: 'DoNotCallImportForm' })

const acceptImport = csvOrJsonBody({
  unsupported: 'Send multipart/form-data with a CSV file, or application/json with phoneNumbers',
  tooManyRows: (maxRows) =>
    AppError.badRequest(`The file has more than ${maxRows} rows; split it`, 'validation_error'),
})

export const registerDoNotCallRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'get',
    path: '/v1/do-not-call',
    summary: "List the organization's do-not-call numbers, newest first (phoneNumber: is this one listed?)",
    tag,
    auth: 'apiKey',
    query: ZListDoNotCallQuery,
    response: ZDoNotCallList,
    handle: async ({ query, req }) => {
      const { entries, pagination } = await doNotCall.listDoNotCall(
        ctx,
        apiKeyActorOf(req).organizationId,
        query,
      )
      return { success: true as const, data: entries, pagination }
    },
  })

  routes.add({
    method: 'post',
    path: '/v1/do-not-call',
    summary: 'Add a number to the do-not-call list (idempotent: a listed number keeps its entry)',
    tag,
    auth: 'apiKey',
    body: ZAddDoNotCall,
    status: 201,
    response: ZDoNotCallResponse,
    handle: async ({ body, req }) => {
      const { entry, alreadyListed } = await doNotCall.addToList(ctx, {
        organizationId: apiKeyActorOf(req).organizationId,
        input: body,
        by: auditByOf(req),
      })
      return { success: true as const, data: entry, alreadyListed }
    },
  })

  routes.add({
    method: 'post',
    path: '/v1/do-not-call/import',
    summary:
      'Import numbers from a CSV (multipart, the batch CSV limits) or a JSON phoneNumbers array: counts of added, already listed and invalid (with rows)',
    tag,
    auth: 'apiKey',
    body: ZDoNotCallImportJson.partial({ phoneNumbers: true }),
    multipartBody: ZImportForm,
    before: [
      acceptImport,
      idempotent({
        ctx,
        scopeOf: (req) => (req.actor?.kind === 'apiKey' ? req.actor.organizationId : ''),
        fingerprintOf: uploadFingerprintOf,
      }),
    ],
    response: ZDoNotCallImported,
    errors: [413, 415],
    handle: async ({ body, req }) => {
      const file = uploadedCsvOf(req)
      const source: doNotCall.ImportSource | null = file
        ? { kind: 'csv', records: file.records }
        : body.phoneNumbers
          ? { kind: 'json', phoneNumbers: body.phoneNumbers }
          : null
      if (!source)
        throw AppError.badRequest('Send a CSV file (multipart field "file") or a JSON phoneNumbers array')
      return doNotCall.importToList(ctx, {
        organizationId: apiKeyActorOf(req).organizationId,
        source,
        by: auditByOf(req),
      })
    },
  })

  routes.add({
    method: 'delete',
    path: '/v1/do-not-call/{phoneNumber}',
    summary: 'Remove a number from the do-not-call list (404 when it is not listed)',
    tag,
    auth: 'apiKey',
    params: ZDoNotCallParams,
    response: ZDoNotCallDeleted,
    errors: [404],
    handle: async ({ params, req }) => {
      await doNotCall.removeFromList(ctx, {
        organizationId: apiKeyActorOf(req).organizationId,
        phoneNumber: params.phoneNumber,
        by: auditByOf(req),
      })
      return { success: true as const, data: { message: 'Number removed from the do-not-call list' } }
    },
  })
}
