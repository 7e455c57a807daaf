import { ZCreateExport, ZExport, ZExportIdParams } from '@parley/shared'
import { z } from 'zod'
import { auditByOf } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { studioActorOf } from '../http/authentication.ts'
import type { RouteTable } from '../http/route-table.ts'
import { createExport, downloadExport, getExport } from './service.ts'

const tag = 'Export'

/** Studio routes: an export of the session's active organization, its progress, its file. */
export const registerExportRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'post',
    path: '/api/export',
    summary:
      'Start an export (conversations, calls, batch_contacts or ledger; ndjson or csv); refused up front (413) above EXPORT_MAX_ROWS',
    tag,
    auth: 'studio',
    body: ZCreateExport,
    status: 202,
    response: ZExport,
    errors: [403, 413, 429],
    handle: ({ body, req }) => createExport(ctx, studioActorOf(req), body, auditByOf(req)),
  })

  routes.add({
    method: 'get',
    path: '/api/export/{id}',
    summary: 'An export’s progress: status, rows written of rows total, bytes',
    tag,
    auth: 'studio',
    params: ZExportIdParams,
    response: ZExport,
    errors: [403, 404],
    handle: ({ params, req }) => getExport(ctx, studioActorOf(req), params.id),
  })

  routes.add({
    method: 'get',
    path: '/api/export/{id}/download',
    summary: 'The completed export’s file, streamed (409 export_not_ready before it completes)',
    tag,
    auth: 'studio',
    params: ZExportIdParams,
    response: z
      .string()
      .meta({ description: 'The file: NDJSON (one record a line) or CSV with a header row' }),
    responseContentType: 'application/octet-stream',
    errors: [403, 404, 409],
    handle: async ({ params, req, res }) => {
      await downloadExport(ctx, studioActorOf(req), params.id, res)
      return ''
    },
  })
}
