import type { KnowledgeStatus } from '@parley/shared'
import { type Kysely, type Selectable, sql, type Transaction } from 'kysely'
import type { Database, Executor } from '../db/index.ts'
import type { KnowledgeTables, SourceOptions } from './tables.ts'

type KnowledgeDatabase = Database & KnowledgeTables
type KnowledgeExecutor = Kysely<KnowledgeDatabase> | Transaction<KnowledgeDatabase>

/** The area's tables on the shared database handle (their types live beside the area). */
const withKnowledge = (db: Executor) => db.withTables<KnowledgeTables>() as unknown as KnowledgeExecutor

export type SourceRow = {
  id: string
  organizationId: string
  kind: 'text' | 'url' | 'site' | 'file'
  title: string
  url: string | null
  fileType: string | null
  language: string
  refresh: 'off' | 'daily' | 'weekly'
  options: SourceOptions
  status: KnowledgeStatus
  pagesFound: number
  pagesDone: number
  chunkCount: number
  bytes: number
  error: string | null
  createdAt: Date
  updatedAt: Date
  fetchedAt: Date | null
}

const sourceColumns = [
  'id',
  'organization_id',
  'kind',
  'title',
  'url',
  'file_type',
  'language',
  'refresh',
  'options',
  'status',
  'pages_found',
  'pages_done',
  'chunk_count',
  'bytes',
  'error',
  'created_at',
  'updated_at',
  'fetched_at',
] as const

type SourceSelect = Pick<Selectable<KnowledgeTables['knowledge_sources']>, (typeof sourceColumns)[number]>

const toSource = (row: SourceSelect): SourceRow => ({
  id: row.id,
  organizationId: row.organization_id,
  kind: row.kind,
  title: row.title,
  url: row.url,
  fileType: row.file_type,
  language: row.language,
  refresh: row.refresh,
  options: row.options,
  status: row.status,
  pagesFound: row.pages_found,
  pagesDone: row.pages_done,
  chunkCount: row.chunk_count,
  bytes: Number(row.bytes),
  error: row.error,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  fetchedAt: row.fetched_at,
})

export type NewSource = Pick<
  SourceRow,
  'id' | 'organizationId' | 'kind' | 'title' | 'url' | 'fileType' | 'language' | 'refresh' | 'options'
> & {
  upload: Buffer | null
  now: Date
}

export const insertSource = async (db: Executor, source: NewSource): Promise<SourceRow> => {
  const row = await withKnowledge(db)
    .insertInto('knowledge_sources')
    .values({
      id: source.id,
      organization_id: source.organizationId,
      kind: source.kind,
      title: source.title,
      url: source.url,
      file_type: source.fileType,
      language: source.language,
      refresh: source.refresh,
      options: JSON.stringify(source.options),
      status: 'queued',
      bytes: 0,
      upload: source.upload,
      created_at: source.now,
      updated_at: source.now,
    })
    .returning(sourceColumns)
    .executeTakeFirstOrThrow()
  return toSource(row)
}

/** What an organization holds now, for its quotas. */
export const usageOf = async (db: Executor, organizationId: string) => {
  const row = await withKnowledge(db)
    .selectFrom('knowledge_sources')
    .where('organization_id', '=', organizationId)
    .select((eb) => [
      eb.fn.countAll<number>().as('sources'),
      eb.fn.coalesce(eb.fn.sum<number>('bytes'), sql<number>`0`).as('bytes'),
      eb.fn.coalesce(eb.fn.sum<number>('chunk_count'), sql<number>`0`).as('chunks'),
    ])
    .executeTakeFirstOrThrow()
  return { sources: Number(row.sources), bytes: Number(row.bytes), chunks: Number(row.chunks) }
}

export const listSources = async (db: Executor, organizationId: string): Promise<SourceRow[]> => {
  const rows = await withKnowledge(db)
    .selectFrom('knowledge_sources')
    .where('organization_id', '=', organizationId)
    .select(sourceColumns)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute()
  return rows.map(toSource)
}

/** Null when the source is not the organization's (or the organization is not given: any). */
export const findSource = async (
  db: Executor,
  { id, organizationId }: { id: string; organizationId?: string },
): Promise<SourceRow | null> => {
  let query = withKnowledge(db).selectFrom('knowledge_sources').where('id', '=', id)
  if (organizationId !== undefined) query = query.where('organization_id', '=', organizationId)
  const row = await query.select(sourceColumns).executeTakeFirst()
  return row ? toSource(row) : null
}

/** The sources among `ids` that belong to the organization. */
export const existingSourceIds = async (
  db: Executor,
  { organizationId, ids }: { organizationId: string; ids: string[] },
) => {
  if (ids.length === 0) return []
  const rows = await withKnowledge(db)
    .selectFrom('knowledge_sources')
    .where('organization_id', '=', organizationId)
    .where('id', 'in', ids)
    .select('id')
    .execute()
  return rows.map(({ id }) => id)
}

export const uploadOf = async (db: Executor, id: string): Promise<Buffer | null> => {
  const row = await withKnowledge(db)
    .selectFrom('knowledge_sources')
    .where('id', '=', id)
    .select('upload')
    .executeTakeFirst()
  return row?.upload ?? null
}

export type SourceProgress = Partial<{
  status: KnowledgeStatus
  pagesFound: number
  pagesDone: number
  error: string | null
  fetchedAt: Date
  nextFetchAt: Date | null
}>

export const updateSource = async (db: Executor, id: string, progress: SourceProgress, now: Date) => {
  await withKnowledge(db)
    .updateTable('knowledge_sources')
    .set({
      ...(progress.status !== undefined ? { status: progress.status } : {}),
      ...(progress.pagesFound !== undefined ? { pages_found: progress.pagesFound } : {}),
      ...(progress.pagesDone !== undefined ? { pages_done: progress.pagesDone } : {}),
      ...(progress.error !== undefined ? { error: progress.error } : {}),
      ...(progress.fetchedAt !== undefined ? { fetched_at: progress.fetchedAt } : {}),
      ...(progress.nextFetchAt !== undefined ? { next_fetch_at: progress.nextFetchAt } : {}),
      updated_at: now,
    })
    .where('id', '=', id)
    .execute()
}

/** Marks a source queued again (re-fetch); false when it is not the organization's. */
export const requeueSource = async (
  db: Executor,
  { id, organizationId, now }: { id: string; organizationId: string; now: Date },
) => {
  const result = await withKnowledge(db)
    .updateTable('knowledge_sources')
    .set({ status: 'queued', error: null, pages_done: 0, updated_at: now })
    .where('id', '=', id)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/**
 * Deletes the source with its pages and chunks (cascade) and takes it off the organization's
 * agents (agents.knowledge_source_ids is this area's column), in one transaction; false when it
 * is not the organization's.
 */
export const deleteSource = async (
  db: Kysely<Database>,
  { id, organizationId }: { id: string; organizationId: string },
) =>
  db.transaction().execute(async (trx) => {
    const result = await withKnowledge(trx)
      .deleteFrom('knowledge_sources')
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst()
    if (Number(result.numDeletedRows) === 0) return false
    await sql`update agents set knowledge_source_ids = knowledge_source_ids - ${id}::text
      where organization_id = ${organizationId} and knowledge_source_ids ? ${id}::text`.execute(trx)
    return true
  })

/** Sources whose scheduled re-fetch is due, claimed by moving their next time forward. */
export const claimDueSources = async (db: Executor, { now, limit }: { now: Date; limit: number }) => {
  const rows = await sql<{ id: string }>`
    update knowledge_sources set next_fetch_at = null, status = 'queued', updated_at = ${now}
    where id in (
      select id from knowledge_sources
      where next_fetch_at <= ${now} and status in ('ready', 'failed')
      order by next_fetch_at limit ${limit} for update skip locked
    )
    returning id`.execute(db)
  return rows.rows.map(({ id }) => id)
}

export type PageRow = { id: string; url: string; etag: string | null; contentHash: string | null }

export const pagesOf = async (db: Executor, sourceId: string): Promise<PageRow[]> => {
  const rows = await withKnowledge(db)
    .selectFrom('knowledge_pages')
    .where('source_id', '=', sourceId)
    .select(['id', 'url', 'etag', 'content_hash'])
    .execute()
  return rows.map((row) => ({ id: row.id, url: row.url, etag: row.etag, contentHash: row.content_hash }))
}

export const pageErrorsOf = async (db: Executor, sourceIds: string[]) => {
  if (sourceIds.length === 0) return new Map<string, { url: string; reason: string }[]>()
  const rows = await withKnowledge(db)
    .selectFrom('knowledge_pages')
    .where('source_id', 'in', sourceIds)
    .where('error', 'is not', null)
    .select(['source_id', 'url', 'error'])
    .orderBy('url')
    .execute()
  const bySource = new Map<string, { url: string; reason: string }[]>()
  for (const row of rows) {
    const list = bySource.get(row.source_id) ?? []
    list.push({ url: row.url, reason: row.error ?? '' })
    bySource.set(row.source_id, list)
  }
  return bySource
}

export type NewChunk = {
  seq: number
  title: string
  url: string | null
  pageNumber: number | null
  content: string
}

/**
 * A page's new state and chunks, in one transaction: its row written (ETag, hash, error) and its
 * chunks replaced. Chunks without a page (a snippet, a file) use `page: null`.
 */
export const replacePage = async (
  db: Kysely<Database>,
  {
    organizationId,
    sourceId,
    language,
    page,
    chunks,
  }: {
    organizationId: string
    sourceId: string
    /** A PostgreSQL text search configuration, from languageConfigOf. */
    language: string
    page: {
      id: string
      url: string
      title: string | null
      etag: string | null
      contentHash: string | null
      error: string | null
      fetchedAt: Date
    } | null
    chunks: NewChunk[] | null
  },
) => {
  await db.transaction().execute(async (trx) => {
    const k = withKnowledge(trx)
    if (page) {
      await k
        .insertInto('knowledge_pages')
        .values({ source_id: sourceId, ...pageValues(page) })
        .onConflict((oc) =>
          oc.columns(['source_id', 'url']).doUpdateSet({
            title: page.title,
            etag: page.etag,
            content_hash: page.contentHash,
            error: page.error,
            fetched_at: page.fetchedAt,
          }),
        )
        .execute()
    }
    if (chunks === null) return
    const pageId = page
      ? (
          await k
            .selectFrom('knowledge_pages')
            .where('source_id', '=', sourceId)
            .where('url', '=', page.url)
            .select('id')
            .executeTakeFirstOrThrow()
        ).id
      : null
    if (pageId) await k.deleteFrom('knowledge_chunks').where('page_id', '=', pageId).execute()
    else await k.deleteFrom('knowledge_chunks').where('source_id', '=', sourceId).execute()
    // A few hundred rows a statement keeps each one well under PostgreSQL's parameter limit.
    for (let start = 0; start < chunks.length; start += 500) {
      await k
        .insertInto('knowledge_chunks')
        .values(
          chunks.slice(start, start + 500).map((chunk) => ({
            organization_id: organizationId,
            source_id: sourceId,
            page_id: pageId,
            seq: chunk.seq,
            title: chunk.title,
            url: chunk.url,
            page_number: chunk.pageNumber,
            content: chunk.content,
            language,
            tsv: sql`setweight(to_tsvector(${language}::regconfig, ${chunk.title}), 'A') || to_tsvector(${language}::regconfig, ${chunk.content})`,
          })),
        )
        .execute()
    }
  })
}

const pageValues = (page: {
  id: string
  url: string
  title: string | null
  etag: string | null
  contentHash: string | null
  error: string | null
  fetchedAt: Date
}) => ({
  id: page.id,
  url: page.url,
  title: page.title,
  etag: page.etag,
  content_hash: page.contentHash,
  error: page.error,
  fetched_at: page.fetchedAt,
})

/** Pages (and their chunks) of a source that a re-fetch no longer found. */
export const deletePagesExcept = async (
  db: Executor,
  { sourceId, keepUrls }: { sourceId: string; keepUrls: string[] },
) => {
  let query = withKnowledge(db).deleteFrom('knowledge_pages').where('source_id', '=', sourceId)
  if (keepUrls.length > 0) query = query.where('url', 'not in', keepUrls)
  await query.execute()
}

/** The source's chunk count and bytes, recounted from its chunks. */
export const recountSource = async (db: Executor, id: string) => {
  await sql`
    update knowledge_sources s set
      chunk_count = c.chunks, bytes = c.bytes
    from (select count(*)::int as chunks, coalesce(sum(octet_length(content)), 0)::bigint as bytes
          from knowledge_chunks where source_id = ${id}) c
    where s.id = ${id}`.execute(db)
}

export type FoundChunk = {
  id: number
  sourceId: string
  title: string
  url: string | null
  pageNumber: number | null
  content: string
  score: number
}

/** A found chunk as SQL gives it back (full-text and vector search select the same columns). */
export type FoundChunkRow = {
  id: number
  source_id: string
  title: string
  url: string | null
  page_number: number | null
  content: string
  score: number
}

export const foundChunkOf = (row: FoundChunkRow): FoundChunk => ({
  id: Number(row.id),
  sourceId: row.source_id,
  title: row.title,
  url: row.url,
  pageNumber: row.page_number,
  content: row.content,
  score: Number(row.score),
})

type FullTextInput = {
  organizationId: string
  sourceIds: string[] | null
  query: string
  languages: string[]
  limit: number
}

/**
 * Passages holding any one word of a question are ranked at most this many: a word in most of a
 * large organization's chunks would otherwise have all of them ranked for every question (at
 * 100,000 chunks, 2,000 ranked took most of a reply's retrieval time; see the knowledge bench).
 */
const MAX_RANKED = 400

/**
 * Which words: `all` of the question (plainto_tsquery's AND), `any` (OR), or the lexemes the
 * organization's chunks hold at all, per language (AND of those: a word no chunk has no longer
 * empties the AND).
 */
type Words = { kind: 'all' } | { kind: 'any' } | { kind: 'present'; lexemes: Map<string, string[]> }

/** A lexeme as tsquery input: quoted, its quotes doubled and backslashes escaped. */
const quoteLexeme = (lexeme: string) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`

const queryOf = (language: string, query: string, words: Words) =>
  words.kind === 'all'
    ? sql`plainto_tsquery(${language}::regconfig, ${query})`
    : words.kind === 'any'
      ? sql`replace(plainto_tsquery(${language}::regconfig, ${query})::text, ' & ', ' | ')::tsquery`
      : sql`${(words.lexemes.get(language) ?? []).map(quoteLexeme).join(' & ')}::tsquery`

const sourceFilter = (sourceIds: string[] | null) =>
  sourceIds ? sql`and source_id in (${sql.join(sourceIds)})` : sql``

const searchWords = async (
  db: Executor,
  { organizationId, sourceIds, query, languages, limit }: FullTextInput,
  words: Words,
): Promise<FoundChunk[]> => {
  const searched =
    words.kind === 'present' ? languages.filter((language) => words.lexemes.get(language)?.length) : languages
  if (searched.length === 0) return []
  const matches = searched.map(
    (language) => sql`(language = ${language} and tsv @@ ${queryOf(language, query, words)})`,
  )
  const ranks = searched.map(
    (language) => sql`when ${language} then ts_rank_cd(tsv, ${queryOf(language, query, words)})`,
  )
  const rows = await sql<FoundChunkRow>`
    select id, source_id, title, url, page_number, content,
      (case language ${sql.join(ranks, sql` `)} end)::float8 as score
    from (
      select id, source_id, title, url, page_number, content, language, tsv
      from knowledge_chunks
      where organization_id = ${organizationId}
        ${sourceFilter(sourceIds)}
        and (${sql.join(matches, sql` or `)})
      ${words.kind === 'any' ? sql`limit ${MAX_RANKED}` : sql``}
    ) candidates
    order by score desc, id
    limit ${limit}`.execute(db)
  return rows.rows.map(foundChunkOf)
}

/**
 * The question's lexemes per language, and which of them the organization's chunks (of these
 * sources) hold: one GIN look-up each, which the first match answers.
 */
const lexemesOf = async (db: Executor, { organizationId, sourceIds, query, languages }: FullTextInput) => {
  const total = new Map<string, number>()
  const present = new Map<string, string[]>()
  for (const language of languages) {
    const { rows } = await sql<{ lexeme: string; present: boolean }>`
      select lexeme, exists (
        select 1 from knowledge_chunks
        where organization_id = ${organizationId} ${sourceFilter(sourceIds)} and language = ${language}
          and tsv @@ ('''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''')::tsquery
      ) as present
      from unnest(tsvector_to_array(to_tsvector(${language}::regconfig, ${query}))) lexeme`.execute(db)
    total.set(language, rows.length)
    present.set(
      language,
      rows.filter((row) => row.present).map((row) => row.lexeme),
    )
  }
  return { total, present }
}

/**
 * Full-text search, ranked by cover density with title words weighted first: passages holding
 * every word of the question; when those are fewer than `limit`, passages holding every word the
 * organization's chunks hold at all (a question often names a word no passage has); then passages
 * holding any of them, at most MAX_RANKED ranked, since a question names more words than a passage
 * answering it may hold. One condition per language the organization's chunks use, each with its
 * own configuration, so the GIN index serves each; the AND queries first keep the rows ranked few
 * on a large organization.
 */
export const searchFullText = async (db: Executor, input: FullTextInput): Promise<FoundChunk[]> => {
  if (input.languages.length === 0 || input.sourceIds?.length === 0) return []
  const found = await searchWords(db, input, { kind: 'all' })
  if (found.length >= input.limit) return found
  const seen = new Set(found.map(({ id }) => id))
  const add = (more: FoundChunk[]) => {
    for (const chunk of more) {
      if (seen.has(chunk.id)) continue
      seen.add(chunk.id)
      found.push(chunk)
    }
  }
  const { total, present } = await lexemesOf(db, input)
  const anyMissing = input.languages.some(
    (language) => (present.get(language)?.length ?? 0) < (total.get(language) ?? 0),
  )
  if (anyMissing) {
    add(await searchWords(db, input, { kind: 'present', lexemes: present }))
    if (found.length >= input.limit) return found.slice(0, input.limit)
  }
  // Two or more words held: passages with only some of them may still answer.
  if (input.languages.some((language) => (present.get(language)?.length ?? 0) > 1))
    add(await searchWords(db, input, { kind: 'any' }))
  return found.slice(0, input.limit)
}

/** The text-search configurations the organization's chunks (of these sources) use. */
export const languagesOf = async (
  db: Executor,
  { organizationId, sourceIds }: { organizationId: string; sourceIds: string[] | null },
) => {
  let query = withKnowledge(db).selectFrom('knowledge_sources').where('organization_id', '=', organizationId)
  if (sourceIds) {
    if (sourceIds.length === 0) return []
    query = query.where('id', 'in', sourceIds)
  }
  const rows = await query.select('language').distinct().execute()
  return rows.map(({ language }) => language)
}

/** An unchanged page: its fetch time (and a new ETag) recorded, its chunks kept. */
export const touchPage = async (
  db: Executor,
  { sourceId, url, fetchedAt, etag }: { sourceId: string; url: string; fetchedAt: Date; etag: string | null },
) => {
  await withKnowledge(db)
    .updateTable('knowledge_pages')
    .set({ fetched_at: fetchedAt, error: null, ...(etag ? { etag } : {}) })
    .where('source_id', '=', sourceId)
    .where('url', '=', url)
    .execute()
}

/** Pages of the organization's other sources fetched since `since` (the daily page quota). */
export const pagesFetchedSince = async (
  db: Executor,
  {
    organizationId,
    since,
    excludeSourceId,
  }: { organizationId: string; since: Date; excludeSourceId: string },
) => {
  const row = await withKnowledge(db)
    .selectFrom('knowledge_pages')
    .innerJoin('knowledge_sources', 'knowledge_sources.id', 'knowledge_pages.source_id')
    .where('knowledge_sources.organization_id', '=', organizationId)
    .where('knowledge_sources.id', '!=', excludeSourceId)
    .where('knowledge_pages.fetched_at', '>=', since)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/**
 * A call's organization, agents and status, read here rather than through calls/ (which reaches
 * chat/, which uses this area): the worker's knowledge search needs nothing else of it.
 */
export const findLiveCall = async (db: Executor, id: string) => {
  const { rows } = await sql<{
    organization_id: string
    agent_id: string
    live_agent_id: string | null
    status: string
  }>`
    select organization_id, agent_id, live_agent_id, status from calls where id = ${id}`.execute(db)
  const row = rows[0]
  return row
    ? {
        organizationId: row.organization_id,
        agentId: row.agent_id,
        liveAgentId: row.live_agent_id,
        status: row.status,
      }
    : null
}
