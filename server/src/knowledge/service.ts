import { validateOutboundUrl } from '@parley/platform'
import type { CreateKnowledgeSource, KnowledgeSearchQuery, KnowledgeSource } from '@parley/shared'
import type { AgentActor } from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { newUlid } from '../crypto/ids.ts'
import { AppError } from '../http/app-error.ts'
import { detectFileType } from './file-type.ts'
import { INGEST_JOB } from './ingest.ts'
import { searchPassages } from './search.ts'
import * as store from './store.ts'

const requireManager = (actor: AgentActor) => {
  if (actor.role !== 'owner' && actor.role !== 'admin')
    throw AppError.forbidden('Only owners and admins manage knowledge sources')
}

const quotaExceeded = (message: string) =>
  new AppError({ status: 403, code: 'knowledge_quota_exceeded', message })

/** Refused before anything is stored: the organization's source count and what it already holds. */
const checkQuotas = async (
  ctx: AppContext,
  organizationId: string,
  { addingBytes }: { addingBytes: number },
) => {
  const { maxSources, maxBytes, maxChunks } = ctx.config.knowledge
  const usage = await store.usageOf(ctx.db, organizationId)
  if (usage.sources >= maxSources)
    throw quotaExceeded(`The organization holds ${maxSources} sources, its quota; delete one first`)
  if (usage.chunks >= maxChunks)
    throw quotaExceeded(`The organization holds ${maxChunks} chunks, its quota; delete a source first`)
  if (usage.bytes + addingBytes > maxBytes)
    throw quotaExceeded(`The organization's ${maxBytes} bytes of knowledge text would be exceeded`)
}

const checkUrl = async (ctx: AppContext, url: string) => {
  const verdict = await validateOutboundUrl(url, { allowHosts: ctx.config.outboundAllowHosts })
  if (!verdict.ok) {
    throw new AppError({
      status: 400,
      code: 'validation_error',
      message: `url: ${verdict.message}`,
      issues: [{ field: 'url', message: verdict.message }],
    })
  }
  return verdict.url.toString()
}

export const toKnowledgeSource = (
  row: store.SourceRow,
  pageErrors: { url: string; reason: string }[] = [],
): KnowledgeSource => ({
  id: row.id,
  kind: row.kind,
  title: row.title,
  url: row.url,
  fileType: row.fileType,
  language: row.language as KnowledgeSource['language'],
  refresh: row.refresh,
  status: row.status,
  progress: { pagesFound: row.pagesFound, pagesDone: row.pagesDone },
  chunkCount: row.chunkCount,
  bytes: row.bytes,
  error: row.error,
  pageErrors,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  fetchedAt: row.fetchedAt?.toISOString() ?? null,
})

const enqueue = async (ctx: AppContext, sourceId: string) => ctx.jobs.now(INGEST_JOB, { sourceId })

export const createSource = async (
  ctx: AppContext,
  actor: AgentActor,
  input: Exclude<CreateKnowledgeSource, { kind: 'file' }>,
) => {
  requireManager(actor)
  const textBytes = input.kind === 'text' ? Buffer.byteLength(input.text) : 0
  await checkQuotas(ctx, actor.organizationId, { addingBytes: textBytes })
  const url = input.kind === 'text' ? null : await checkUrl(ctx, input.url)
  const source = await store.insertSource(ctx.db, {
    id: newUlid(),
    organizationId: actor.organizationId,
    kind: input.kind,
    title:
      input.title ?? (url ? new URL(url).hostname + new URL(url).pathname.replace(/\/$/, '') : 'Untitled'),
    url,
    fileType: input.kind === 'text' ? 'markdown' : null,
    language: input.language ?? 'en',
    refresh: input.kind === 'text' ? 'off' : (input.refresh ?? 'off'),
    options:
      input.kind === 'site'
        ? {
            ...(input.maxPages ? { maxPages: input.maxPages } : {}),
            ...(input.maxDepth !== undefined ? { maxDepth: input.maxDepth } : {}),
          }
        : {},
    upload: input.kind === 'text' ? Buffer.from(input.text) : null,
    now: ctx.clock.now(),
  })
  await enqueue(ctx, source.id)
  return toKnowledgeSource(source)
}

export type Upload = { bytes: Buffer; name: string; contentType: string }

export const createFileSource = async (
  ctx: AppContext,
  actor: AgentActor,
  { upload, title, language }: { upload: Upload; title?: string | undefined; language?: string | undefined },
) => {
  requireManager(actor)
  if (upload.bytes.length === 0) throw AppError.badRequest('file: is empty')
  const fileType = detectFileType({ bytes: upload.bytes, name: upload.name, contentType: upload.contentType })
  if (!fileType) {
    throw new AppError({
      status: 415,
      code: 'unsupported_file_type',
      message:
        'file: its content is not PDF, DOCX, HTML, Markdown, plain text or CSV (or does not match its name)',
    })
  }
  await checkQuotas(ctx, actor.organizationId, { addingBytes: 0 })
  const source = await store.insertSource(ctx.db, {
    id: newUlid(),
    organizationId: actor.organizationId,
    kind: 'file',
    title: title ?? (upload.name.slice(0, 200) || 'Upload'),
    url: null,
    fileType,
    language: language ?? 'en',
    refresh: 'off',
    options: {},
    upload: upload.bytes,
    now: ctx.clock.now(),
  })
  await enqueue(ctx, source.id)
  return toKnowledgeSource(source)
}

export const listSources = async (ctx: AppContext, actor: AgentActor) => {
  const rows = await store.listSources(ctx.db, actor.organizationId)
  const errors = await store.pageErrorsOf(
    ctx.db,
    rows.map(({ id }) => id),
  )
  return rows.map((row) => toKnowledgeSource(row, errors.get(row.id)))
}

const sourceOf = async (ctx: AppContext, actor: AgentActor, id: string) => {
  const row = await store.findSource(ctx.db, { id, organizationId: actor.organizationId })
  if (!row) throw AppError.notFound('knowledge source')
  return row
}

export const getSource = async (ctx: AppContext, actor: AgentActor, id: string) => {
  const row = await sourceOf(ctx, actor, id)
  const errors = await store.pageErrorsOf(ctx.db, [row.id])
  return toKnowledgeSource(row, errors.get(row.id))
}

/** Fetches (or re-reads) the source now; refused while it is still being processed. */
export const refetchSource = async (ctx: AppContext, actor: AgentActor, id: string) => {
  requireManager(actor)
  const row = await sourceOf(ctx, actor, id)
  if (row.status !== 'ready' && row.status !== 'failed')
    throw AppError.conflict('The source is still being processed', 'knowledge_source_not_ready')
  await store.requeueSource(ctx.db, { id, organizationId: actor.organizationId, now: ctx.clock.now() })
  await enqueue(ctx, id)
  return getSource(ctx, actor, id)
}

export const deleteSource = async (ctx: AppContext, actor: AgentActor, id: string) => {
  requireManager(actor)
  if (!(await store.deleteSource(ctx.db, { id, organizationId: actor.organizationId })))
    throw AppError.notFound('knowledge source')
  return { message: 'Knowledge source deleted with its chunks' }
}

export const search = async (ctx: AppContext, actor: AgentActor, query: KnowledgeSearchQuery) =>
  searchPassages(ctx, {
    organizationId: actor.organizationId,
    sourceIds: query.sourceIds ?? null,
    query: query.q,
    limit: query.limit ?? 5,
  })
