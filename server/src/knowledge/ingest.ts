import { setTimeout as sleep } from 'node:timers/promises'
import type { AppContext } from '../context.ts'
import { newUlid } from '../crypto/ids.ts'
import type { ChunkDraft } from './chunk.ts'
import { normalizeSiteUrl, planSite } from './crawl.ts'
import { type FetchedPage, fetchDocument } from './fetch.ts'
import type { FileType } from './file-type.ts'
import { textSearchConfigOf } from './language.ts'
import { createParser, ParseError, type Parser } from './parse.ts'
import * as store from './store.ts'
import { vectorHooksOf } from './vector-hooks.ts'

export const INGEST_JOB = 'knowledge.ingest'
export const REFRESH_SWEEP_JOB = 'knowledge.refresh-sweep'

const DEFAULT_SITE_PAGES = 50
const DEFAULT_SITE_DEPTH = 3
/** A file unpacks (DOCX) to at most this many times the largest file allowed. */
const UNZIP_FACTOR = 10
const refreshIntervals = { off: null, daily: 24 * 3600 * 1000, weekly: 7 * 24 * 3600 * 1000 } as const

type IngestRun = {
  ctx: AppContext
  source: store.SourceRow
  parser: Parser
  language: string
}

/** Quotas checked before each page's chunks are stored: a page that would pass one is not stored. */
const checkQuota = async ({ ctx, source }: IngestRun, { chunks }: { chunks: ChunkDraft[] }) => {
  const usage = await store.usageOf(ctx.db, source.organizationId)
  const { maxChunks, maxBytes } = ctx.config.knowledge
  const bytes = chunks.reduce((sum, chunk) => sum + Buffer.byteLength(chunk.content), 0)
  if (usage.chunks + chunks.length > maxChunks)
    return `the organization's quota of ${maxChunks} chunks is reached`
  if (usage.bytes + bytes > maxBytes)
    return `the organization's quota of ${maxBytes} bytes of text is reached`
  return null
}

const storeChunks = async (
  run: IngestRun,
  { page, chunks }: { page: Parameters<typeof store.replacePage>[1]['page']; chunks: ChunkDraft[] },
) => {
  await store.replacePage(run.ctx.db, {
    organizationId: run.source.organizationId,
    sourceId: run.source.id,
    language: run.language,
    page,
    chunks: chunks.map((chunk, seq) => ({
      seq,
      title: chunk.title,
      url: page?.url ?? null,
      pageNumber: chunk.pageNumber,
      content: chunk.content,
    })),
  })
  await store.recountSource(run.ctx.db, run.source.id)
}

const parseOrReason = async (
  run: IngestRun,
  input: { bytes: Uint8Array; type: FileType; url: string | null },
) => {
  try {
    return await run.parser.parse({ ...input, fallbackTitle: run.source.title })
  } catch (error) {
    if (error instanceof ParseError) return error.message
    throw error
  }
}

/** A snippet or an uploaded file: one document, no pages. */
const ingestStored = async (run: IngestRun) => {
  const bytes = await store.uploadOf(run.ctx.db, run.source.id)
  if (!bytes) throw new ParseError('the stored document is missing')
  await store.updateSource(
    run.ctx.db,
    run.source.id,
    { status: 'indexing', pagesFound: 1 },
    run.ctx.clock.now(),
  )
  const type = (run.source.kind === 'text' ? 'markdown' : run.source.fileType) as FileType
  const parsed = await parseOrReason(run, { bytes, type, url: null })
  if (typeof parsed === 'string') throw new ParseError(`The file ${parsed}`)
  if (parsed.chunks.length === 0) throw new ParseError('No text was found in it')
  const quota = await checkQuota(run, parsed)
  if (quota) throw new ParseError(`Not indexed: ${quota}`)
  await storeChunks(run, { page: null, chunks: parsed.chunks })
  await store.updateSource(run.ctx.db, run.source.id, { pagesDone: 1 }, run.ctx.clock.now())
}

/** Fetched pages this organization fetched in the last day, with the one about to be. */
const isPageQuotaReached = async (run: IngestRun, fetchedThisRun: number) => {
  const recent = await store.pagesFetchedSince(run.ctx.db, {
    organizationId: run.source.organizationId,
    since: new Date(run.ctx.clock.now().getTime() - 24 * 3600 * 1000),
    excludeSourceId: run.source.id,
  })
  return recent + fetchedThisRun >= run.ctx.config.knowledge.maxPagesPerDay
}

/** One page of a URL or site source: fetched, parsed when changed, its chunks replaced. */
const ingestPage = async (
  run: IngestRun,
  {
    url,
    known,
    isHopAllowed,
  }: { url: string; known: store.PageRow | undefined; isHopAllowed?: (url: URL) => boolean },
): Promise<{ links: string[]; error: string | null }> => {
  const { ctx } = run
  const fetched: FetchedPage = await fetchDocument(url, {
    allowHosts: ctx.config.outboundAllowHosts,
    maxBytes: ctx.config.knowledge.maxFileBytes,
    ...(isHopAllowed ? { isHopAllowed } : {}),
    ...(known ? { known } : {}),
  })
  const now = ctx.clock.now()
  const pageOf = (fields: {
    title: string | null
    etag: string | null
    contentHash: string | null
    error: string | null
  }) => ({
    id: known?.id ?? newUlid(),
    url,
    fetchedAt: now,
    ...fields,
  })
  if (fetched.outcome === 'failed') {
    await store.replacePage(ctx.db, {
      organizationId: run.source.organizationId,
      sourceId: run.source.id,
      language: run.language,
      page: pageOf({ title: null, etag: null, contentHash: null, error: fetched.reason }),
      chunks: [],
    })
    return { links: [], error: fetched.reason }
  }
  if (fetched.outcome === 'unchanged') {
    await store.touchPage(ctx.db, { sourceId: run.source.id, url, fetchedAt: now, etag: fetched.etag })
    return { links: [], error: null }
  }
  const parsed = await parseOrReason(run, { bytes: fetched.bytes, type: fetched.type, url: fetched.url })
  if (typeof parsed === 'string') {
    await store.replacePage(ctx.db, {
      organizationId: run.source.organizationId,
      sourceId: run.source.id,
      language: run.language,
      page: pageOf({ title: null, etag: null, contentHash: null, error: parsed }),
      chunks: [],
    })
    return { links: [], error: parsed }
  }
  const quota = await checkQuota(run, parsed)
  const error = quota ?? (parsed.chunks.length === 0 ? 'no text found' : null)
  await storeChunks(run, {
    page: pageOf({
      title: parsed.title,
      etag: fetched.etag,
      contentHash: quota ? null : fetched.contentHash,
      error,
    }),
    chunks: quota ? [] : parsed.chunks,
  })
  return { links: parsed.links, error: quota }
}

const ingestUrl = async (run: IngestRun) => {
  const url = run.source.url as string
  const known = (await store.pagesOf(run.ctx.db, run.source.id)).find((page) => page.url === url)
  await store.updateSource(
    run.ctx.db,
    run.source.id,
    { status: 'fetching', pagesFound: 1, pagesDone: 0 },
    run.ctx.clock.now(),
  )
  if (await isPageQuotaReached(run, 0))
    throw new ParseError(
      `The organization's quota of ${run.ctx.config.knowledge.maxPagesPerDay} pages a day is reached`,
    )
  const { error } = await ingestPage(run, { url, known })
  if (error) throw new ParseError(error)
  await store.updateSource(run.ctx.db, run.source.id, { pagesDone: 1 }, run.ctx.clock.now())
}

/**
 * A site: the sitemap's pages, or the start page and the same-site links found from it (breadth
 * first, to maxDepth), allowed by robots.txt, one request at a time with the polite delay between.
 * Pages a re-fetch no longer finds are removed with their chunks.
 */
const ingestSite = async (run: IngestRun) => {
  const { ctx, source } = run
  const maxPages = source.options.maxPages ?? DEFAULT_SITE_PAGES
  const maxDepth = source.options.maxDepth ?? DEFAULT_SITE_DEPTH
  const startUrl = source.url as string
  const origin = new URL(startUrl).origin
  await store.updateSource(
    ctx.db,
    source.id,
    { status: 'fetching', pagesFound: 0, pagesDone: 0 },
    ctx.clock.now(),
  )
  const plan = await planSite({
    startUrl,
    allowHosts: ctx.config.outboundAllowHosts,
    maxBytes: ctx.config.knowledge.maxFileBytes,
    delayMs: ctx.config.knowledge.crawlDelayMs,
    maxPages,
  })
  const knownPages = new Map((await store.pagesOf(ctx.db, source.id)).map((page) => [page.url, page]))
  const queue: { url: string; depth: number }[] = plan.urls
    .filter(plan.isAllowed)
    .map((url) => ({ url, depth: 0 }))
  // On a re-fetch the pages found last time are visited again, even if an unchanged (304) page no longer shows its links.
  if (!plan.isFromSitemap)
    for (const url of knownPages.keys()) if (plan.isAllowed(url)) queue.push({ url, depth: maxDepth })
  const seen = new Set(queue.map(({ url }) => url))
  const visited: string[] = []
  let failures = 0
  for (let next = queue.shift(); next && visited.length < maxPages; next = queue.shift()) {
    if (await isPageQuotaReached(run, visited.length)) {
      await store.updateSource(
        ctx.db,
        source.id,
        {
          error: `The organization's quota of ${ctx.config.knowledge.maxPagesPerDay} pages a day is reached`,
        },
        ctx.clock.now(),
      )
      break
    }
    if (visited.length > 0) await sleep(plan.delayMs)
    const { links, error } = await ingestPage(run, {
      url: next.url,
      known: knownPages.get(next.url),
      isHopAllowed: (hop) => hop.origin === origin && plan.isAllowed(hop.toString()),
    })
    visited.push(next.url)
    if (error) failures += 1
    if (!plan.isFromSitemap && next.depth < maxDepth) {
      for (const link of links) {
        const url = normalizeSiteUrl(link, origin)
        if (!url || seen.has(url) || !plan.isAllowed(url)) continue
        seen.add(url)
        queue.push({ url, depth: next.depth + 1 })
      }
    }
    await store.updateSource(
      ctx.db,
      source.id,
      { pagesFound: Math.min(maxPages, seen.size), pagesDone: visited.length },
      ctx.clock.now(),
    )
  }
  await store.deletePagesExcept(ctx.db, { sourceId: source.id, keepUrls: visited })
  await store.recountSource(ctx.db, source.id)
  if (visited.length > 0 && failures === visited.length)
    throw new ParseError('No page of the site could be read')
}

/** The ingest job: the source's documents fetched, parsed and indexed; its status kept as it goes. */
export const ingestSource = async (ctx: AppContext, sourceId: string) => {
  const source = await store.findSource(ctx.db, { id: sourceId })
  if (!source) return
  const { knowledge } = ctx.config
  const parser = createParser({
    timeoutMs: knowledge.parseTimeoutMs,
    memoryMb: knowledge.parseMemoryMb,
    maxPdfPages: knowledge.maxPdfPages,
    maxUnzippedBytes: knowledge.maxFileBytes * UNZIP_FACTOR,
  })
  const run: IngestRun = { ctx, source, parser, language: textSearchConfigOf(source.language) }
  try {
    if (source.kind === 'text' || source.kind === 'file') await ingestStored(run)
    else if (source.kind === 'url') await ingestUrl(run)
    else await ingestSite(run)
    await store.updateSource(ctx.db, source.id, { status: 'indexing' }, ctx.clock.now())
    await vectorHooksOf(ctx)?.embedSource(source.id)
    await finish(ctx, source, { status: 'ready', error: null })
  } catch (error) {
    if (!(error instanceof ParseError)) ctx.logger.error({ err: error, sourceId }, 'knowledge ingest failed')
    await finish(ctx, source, {
      status: 'failed',
      error: error instanceof ParseError ? error.message : 'The source could not be processed',
    })
  } finally {
    await parser.close()
  }
}

const finish = async (
  ctx: AppContext,
  source: store.SourceRow,
  { status, error }: { status: 'ready' | 'failed'; error: string | null },
) => {
  const now = ctx.clock.now()
  const interval = refreshIntervals[source.refresh]
  await store.updateSource(
    ctx.db,
    source.id,
    {
      status,
      ...(error !== null || status === 'ready' ? { error } : {}),
      fetchedAt: now,
      nextFetchAt:
        interval && (source.kind === 'url' || source.kind === 'site')
          ? new Date(now.getTime() + interval)
          : null,
    },
    now,
  )
}

/** Re-fetches due on their schedule are queued by an hourly sweep. */
const refreshDueSources = async (ctx: AppContext) => {
  const ids = await store.claimDueSources(ctx.db, { now: ctx.clock.now(), limit: 100 })
  for (const sourceId of ids) await ctx.jobs.now(INGEST_JOB, { sourceId })
}

export const registerKnowledgeJobs = (ctx: AppContext) => {
  ctx.jobs.define<{ sourceId: string }>(INGEST_JOB, ({ sourceId }) => ingestSource(ctx, sourceId), {
    concurrency: 2,
  })
  ctx.jobs.define(REFRESH_SWEEP_JOB, () => refreshDueSources(ctx), { concurrency: 1 })
}

export const scheduleKnowledgeRefresh = (ctx: AppContext) => ctx.jobs.every(3600 * 1000, REFRESH_SWEEP_JOB)
