import { z } from 'zod'
import { ZIsoDateTime } from './common.ts'

/**
 * Knowledge: an organization's own site and documents, chunked and searched, so agents answer from
 * them and name their sources.
 */

export const knowledgeSourceKinds = ['text', 'url', 'site', 'file'] as const
export const ZKnowledgeSourceKind = z.enum(knowledgeSourceKinds)
export type KnowledgeSourceKind = z.infer<typeof ZKnowledgeSourceKind>

export const knowledgeStatuses = ['queued', 'fetching', 'indexing', 'ready', 'failed'] as const
export const ZKnowledgeStatus = z.enum(knowledgeStatuses)
export type KnowledgeStatus = z.infer<typeof ZKnowledgeStatus>

export const knowledgeRefreshes = ['off', 'daily', 'weekly'] as const
export const ZKnowledgeRefresh = z.enum(knowledgeRefreshes)

/**
 * Text-search languages: each maps to a PostgreSQL text search configuration (stemming and stop
 * words); `simple` (and Urdu and Sindhi, which PostgreSQL has no stemmer for) only lower-cases.
 */
export const knowledgeLanguages = [
  'simple',
  'en',
  'de',
  'fr',
  'es',
  'it',
  'pt',
  'nl',
  'sv',
  'da',
  'no',
  'fi',
  'ru',
  'tr',
  'ur',
  'sd',
] as const
export const ZKnowledgeLanguage = z
  .enum(knowledgeLanguages)
  .meta({ description: 'The language of the text, for stemming in full-text search; en unless given' })

/** Documented limits of one source; the organization's quotas come from the server's config. */
export const knowledgeLimits = {
  maxTextChars: 200_000,
  maxTitleChars: 200,
  maxSitePages: 500,
  maxSiteDepth: 5,
  maxQueryChars: 500,
} as const

const ZTitle = z.string().trim().min(1, 'title is required').max(knowledgeLimits.maxTitleChars)
const ZHttpUrl = z
  .string()
  .trim()
  .max(2000)
  .url('must be a URL')
  .meta({ description: 'An https URL on a public address', example: 'https://example.com/help' })

const commonFields = {
  language: ZKnowledgeLanguage.optional(),
  refresh: ZKnowledgeRefresh.optional().meta({
    description: 'Re-fetch on a schedule (url and site only); unchanged pages are skipped; off unless given',
  }),
}

export const ZCreateTextSource = z
  .object({
    kind: z.literal('text'),
    title: ZTitle,
    text: z.string().min(1, 'text is required').max(knowledgeLimits.maxTextChars),
    language: commonFields.language,
  })
  .meta({ id: 'CreateTextKnowledgeSource' })

export const ZCreateUrlSource = z
  .object({ kind: z.literal('url'), url: ZHttpUrl, title: ZTitle.optional(), ...commonFields })
  .meta({ id: 'CreateUrlKnowledgeSource' })

export const ZCreateSiteSource = z
  .object({
    kind: z.literal('site'),
    url: ZHttpUrl.meta({ description: 'The start page; only pages of the same host are fetched' }),
    title: ZTitle.optional(),
    maxPages: z
      .number()
      .int()
      .min(1)
      .max(knowledgeLimits.maxSitePages)
      .optional()
      .meta({ description: '50 unless given' }),
    maxDepth: z.number().int().min(0).max(knowledgeLimits.maxSiteDepth).optional().meta({
      description: 'Links followed from the start page when there is no sitemap; 3 unless given',
    }),
    ...commonFields,
  })
  .meta({ id: 'CreateSiteKnowledgeSource' })

/** The text fields of an upload (multipart/form-data, with the document in the field `file`). */
export const ZCreateFileSource = z
  .object({ kind: z.literal('file'), title: ZTitle.optional(), language: commonFields.language })
  .meta({ id: 'CreateFileKnowledgeSource' })

export const ZCreateKnowledgeSource = z
  .discriminatedUnion('kind', [ZCreateTextSource, ZCreateUrlSource, ZCreateSiteSource, ZCreateFileSource])
  .meta({ id: 'CreateKnowledgeSource' })
export type CreateKnowledgeSource = z.infer<typeof ZCreateKnowledgeSource>

/** The multipart form of an upload: kind=file, the document, optional title and language. */
export const ZKnowledgeUploadForm = z
  .object({
    kind: z.literal('file'),
    file: z.string().meta({ format: 'binary', description: 'PDF, DOCX, HTML, Markdown, plain text or CSV' }),
    title: z.string().optional(),
    language: ZKnowledgeLanguage.optional(),
  })
  .meta({ id: 'KnowledgeUploadForm' })

export const ZKnowledgePageError = z.object({ url: z.string(), reason: z.string() })

export const ZKnowledgeSource = z
  .object({
    id: z.string(),
    kind: ZKnowledgeSourceKind,
    title: z.string(),
    url: z.string().nullable(),
    fileType: z.string().nullable().meta({ description: 'pdf, docx, html, markdown, text or csv (uploads)' }),
    language: ZKnowledgeLanguage,
    refresh: ZKnowledgeRefresh,
    status: ZKnowledgeStatus,
    progress: z.object({
      pagesFound: z.number().int(),
      pagesDone: z.number().int(),
    }),
    chunkCount: z.number().int(),
    bytes: z.number().int().meta({ description: 'Bytes of text indexed' }),
    error: z.string().nullable().meta({ description: 'Why the source failed as a whole' }),
    pageErrors: z
      .array(ZKnowledgePageError)
      .meta({ description: 'Pages that could not be used, each with why' }),
    createdAt: ZIsoDateTime,
    updatedAt: ZIsoDateTime,
    fetchedAt: ZIsoDateTime.nullable(),
  })
  .meta({ id: 'KnowledgeSource' })
export type KnowledgeSource = z.infer<typeof ZKnowledgeSource>

export const ZKnowledgeSourceResponse = z
  .object({ success: z.literal(true), data: ZKnowledgeSource })
  .meta({ id: 'KnowledgeSourceResponse' })

export const ZKnowledgeSourceList = z
  .object({ success: z.literal(true), data: z.array(ZKnowledgeSource) })
  .meta({ id: 'KnowledgeSourceList' })

export const ZKnowledgeSourceIdParams = z.object({ sourceId: z.string().min(1).max(100) })

export const ZKnowledgeDeleted = z
  .object({ success: z.literal(true), data: z.object({ message: z.string() }) })
  .meta({ id: 'KnowledgeSourceDeleted' })

const ZSourceIdList = z
  .string()
  .max(2000)
  .transform((value) => value.split(',').filter(Boolean))
  .meta({
    description: 'Comma-separated source ids to search in; every source of the organization unless given',
  })

export const ZKnowledgeSearchQuery = z.object({
  q: z.string().trim().min(1, 'q is required').max(knowledgeLimits.maxQueryChars),
  sourceIds: ZSourceIdList.optional(),
  limit: z.coerce.number().int().min(1).max(20).optional(),
})
export type KnowledgeSearchQuery = z.infer<typeof ZKnowledgeSearchQuery>

/** One passage found: where it comes from (title, URL or page) and its text. */
export const ZKnowledgePassage = z
  .object({
    sourceId: z.string(),
    title: z.string(),
    url: z.string().nullable(),
    page: z.number().int().nullable().meta({ description: 'The page of a PDF' }),
    text: z.string(),
    score: z.number(),
  })
  .meta({ id: 'KnowledgePassage' })
export type KnowledgePassage = z.infer<typeof ZKnowledgePassage>

export const ZKnowledgeSearchResult = z
  .object({
    success: z.literal(true),
    data: z.object({
      mode: z.enum(['fulltext', 'vector', 'hybrid']).meta({ description: 'How the passages were ranked' }),
      passages: z.array(ZKnowledgePassage),
    }),
  })
  .meta({ id: 'KnowledgeSearchResult' })

/** A source a reply used, as the visitor sees it under the answer. */
export const ZReplySource = z
  .object({
    title: z.string(),
    url: z.string().nullable(),
    snippet: z.string().meta({ description: 'The start of the passage, at most 200 characters' }),
  })
  .meta({ id: 'ReplySource' })
export type ReplySource = z.infer<typeof ZReplySource>

/** The voice worker's knowledge search for a call (its `search_knowledge` tool, and each turn). */
export const ZCallKnowledgeSearch = z
  .object({ query: z.string().trim().min(1, 'query is required').max(knowledgeLimits.maxQueryChars) })
  .meta({ id: 'CallKnowledgeSearchRequest' })

export const ZCallKnowledgeResult = z
  .object({
    passages: z.array(ZKnowledgePassage),
    sources: z.array(ZReplySource),
    instruction: z.string().nullable().meta({
      description:
        'The passages as the chat gives them to its model, with the answer-from-these rule; null when none',
    }),
  })
  .meta({ id: 'CallKnowledgeResult' })
