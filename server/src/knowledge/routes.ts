import {
  ZCreateKnowledgeSource,
  ZKnowledgeDeleted,
  ZKnowledgeSearchQuery,
  ZKnowledgeSearchResult,
  ZKnowledgeSourceIdParams,
  ZKnowledgeSourceList,
  ZKnowledgeSourceResponse,
  ZKnowledgeUploadForm,
} from '@parley/shared'
import { agentActorOf } from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import type { RouteTable } from '../http/route-table.ts'
import * as knowledge from './service.ts'
import { acceptDocumentOrJson, uploadOf } from './upload.ts'
import { registerKnowledgeWorkerRoutes } from './worker-routes.ts'

const tag = 'Knowledge'

export const registerKnowledgeRoutes = (routes: RouteTable, ctx: AppContext) => {
  registerKnowledgeWorkerRoutes(routes, ctx)
  routes.add({
    method: 'post',
    path: '/v1/knowledge/sources',
    summary:
      'Add a knowledge source (owners and admins): text, a URL or a whole site as JSON, or a file (PDF, DOCX, HTML, Markdown, text, CSV) as multipart with kind=file. It is fetched and indexed by a job: watch its status',
    tag,
    auth: 'apiKey',
    body: ZCreateKnowledgeSource,
    multipartBody: ZKnowledgeUploadForm,
    status: 202,
    before: [acceptDocumentOrJson(ctx)],
    response: ZKnowledgeSourceResponse,
    errors: [403, 413, 415],
    handle: async ({ body, req }) => {
      const actor = await agentActorOf(ctx, req)
      const upload = uploadOf(req)
      if (body.kind !== 'file' && upload) throw AppError.badRequest(`file: only kind=file takes a file`)
      if (body.kind !== 'file')
        return { success: true as const, data: await knowledge.createSource(ctx, actor, body) }
      if (!upload)
        throw AppError.badRequest('file: send the document as multipart/form-data in the field "file"')
      return {
        success: true as const,
        data: await knowledge.createFileSource(ctx, actor, {
          upload,
          title: body.title,
          language: body.language,
        }),
      }
    },
  })

  routes.add({
    method: 'get',
    path: '/v1/knowledge/sources',
    summary: "The organization's knowledge sources, newest first, with status, progress and page errors",
    tag,
    auth: 'apiKey',
    response: ZKnowledgeSourceList,
    handle: async ({ req }) => ({
      success: true as const,
      data: await knowledge.listSources(ctx, await agentActorOf(ctx, req)),
    }),
  })

  routes.add({
    method: 'get',
    path: '/v1/knowledge/sources/{sourceId}',
    summary:
      'One knowledge source: status (queued, fetching, indexing, ready, failed), pages done of found, why pages failed',
    tag,
    auth: 'apiKey',
    params: ZKnowledgeSourceIdParams,
    response: ZKnowledgeSourceResponse,
    errors: [404],
    handle: async ({ params, req }) => ({
      success: true as const,
      data: await knowledge.getSource(ctx, await agentActorOf(ctx, req), params.sourceId),
    }),
  })

  routes.add({
    method: 'post',
    path: '/v1/knowledge/sources/{sourceId}/refetch',
    summary:
      'Fetch the source again now (unchanged pages are skipped by ETag or content hash); 409 while it is being processed',
    tag,
    auth: 'apiKey',
    params: ZKnowledgeSourceIdParams,
    status: 202,
    response: ZKnowledgeSourceResponse,
    errors: [403, 404, 409],
    handle: async ({ params, req }) => ({
      success: true as const,
      data: await knowledge.refetchSource(ctx, await agentActorOf(ctx, req), params.sourceId),
    }),
  })

  routes.add({
    method: 'delete',
    path: '/v1/knowledge/sources/{sourceId}',
    summary: 'Delete a knowledge source with every chunk made from it',
    tag,
    auth: 'apiKey',
    params: ZKnowledgeSourceIdParams,
    response: ZKnowledgeDeleted,
    errors: [403, 404],
    handle: async ({ params, req }) => ({
      success: true as const,
      data: await knowledge.deleteSource(ctx, await agentActorOf(ctx, req), params.sourceId),
    }),
  })

  routes.add({
    method: 'get',
    path: '/v1/knowledge/search',
    summary:
      'Try a question: the passages an agent would be given, best first (full-text, or hybrid with embeddings)',
    tag,
    auth: 'apiKey',
    query: ZKnowledgeSearchQuery,
    response: ZKnowledgeSearchResult,
    handle: async ({ query, req }) => ({
      success: true as const,
      data: await knowledge.search(ctx, await agentActorOf(ctx, req), query),
    }),
  })
}
