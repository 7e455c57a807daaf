import { optionalText, urlWithSchemes, wholeNumber } from '@parley/platform'
import { z } from 'zod'

/** The knowledge area's variables: per-organization quotas, fetching and parsing limits, embeddings. */
export const ZKnowledgeVariables = z.object({
  /** Sources one organization may hold. */
  KNOWLEDGE_MAX_SOURCES: wholeNumber(6, 'sources', 1).default(200),
  /** Bytes of extracted text one organization may hold indexed (all sources). */
  KNOWLEDGE_MAX_BYTES: wholeNumber(12, 'bytes', 1).default(100 * 1024 * 1024),
  /** Chunks one organization may hold (all sources). */
  KNOWLEDGE_MAX_CHUNKS: wholeNumber(9, 'chunks', 1).default(200_000),
  /** Pages fetched per organization and day (sites, single URLs and re-fetches). */
  KNOWLEDGE_MAX_PAGES_PER_DAY: wholeNumber(9, 'pages', 1).default(5000),
  /** An uploaded file, or one fetched page, larger than this is refused. */
  KNOWLEDGE_MAX_FILE_BYTES: wholeNumber(10, 'bytes', 1).default(20 * 1024 * 1024),
  /** A PDF with more pages than this fails. */
  KNOWLEDGE_MAX_PDF_PAGES: wholeNumber(5, 'pages', 1).default(500),
  /** The pause between two requests to one site (a polite crawl); robots.txt's Crawl-delay may lengthen it up to 10 s. */
  KNOWLEDGE_CRAWL_DELAY_MS: wholeNumber(6, 'milliseconds').default(1000),
  /** One file's parsing is stopped after this (in its worker thread). */
  KNOWLEDGE_PARSE_TIMEOUT_MS: wholeNumber(7, 'milliseconds', 100).default(30_000),
  /** The parsing worker thread's heap limit. */
  KNOWLEDGE_PARSE_MEMORY_MB: wholeNumber(5, 'MiB', 32).default(256),
  /**
   * The registry provider whose embedding model knowledge search uses (openai, gemini, or one of
   * PROVIDERS_FILE's), with the organization's own key for it when it has one; unset (and no
   * EMBEDDINGS_BASE_URL): full-text search only.
   */
  EMBEDDINGS_PROVIDER: optionalText,
  /** The development shortcut: an OpenAI-compatible /v1/embeddings endpoint and its key. */
  EMBEDDINGS_BASE_URL: urlWithSchemes(['http', 'https']),
  EMBEDDINGS_API_KEY: optionalText,
  /** The provider's model id; default text-embedding-3-small (gemini-embedding-001 for gemini). */
  EMBEDDINGS_MODEL: z.string().trim().min(1).max(200).optional(),
  EMBEDDINGS_DIMENSIONS: wholeNumber(5, 'dimensions', 1).default(1536),
})

type KnowledgeVariables = z.output<typeof ZKnowledgeVariables>

export type KnowledgeConfig = Readonly<{
  maxSources: number
  maxBytes: number
  maxChunks: number
  maxPagesPerDay: number
  maxFileBytes: number
  maxPdfPages: number
  crawlDelayMs: number
  parseTimeoutMs: number
  parseMemoryMb: number
  /**
   * Null: no embedding model, full-text search only. `provider`: a registry provider
   * (providers/embeddings.ts resolves its endpoint and key per organization); null: the
   * EMBEDDINGS_BASE_URL shortcut with its own key.
   */
  embeddings: Readonly<
    | { provider: string; model: string; dimensions: number }
    | { provider: null; baseUrl: string; apiKey: string | null; model: string; dimensions: number }
  > | null
}>

const defaultModelOf = (provider: string | undefined) =>
  provider === 'gemini' ? 'gemini-embedding-001' : 'text-embedding-3-small'

export const toKnowledgeConfig = (vars: KnowledgeVariables): KnowledgeConfig =>
  Object.freeze({
    maxSources: vars.KNOWLEDGE_MAX_SOURCES,
    maxBytes: vars.KNOWLEDGE_MAX_BYTES,
    maxChunks: vars.KNOWLEDGE_MAX_CHUNKS,
    maxPagesPerDay: vars.KNOWLEDGE_MAX_PAGES_PER_DAY,
    maxFileBytes: vars.KNOWLEDGE_MAX_FILE_BYTES,
    maxPdfPages: vars.KNOWLEDGE_MAX_PDF_PAGES,
    crawlDelayMs: vars.KNOWLEDGE_CRAWL_DELAY_MS,
    parseTimeoutMs: vars.KNOWLEDGE_PARSE_TIMEOUT_MS,
    parseMemoryMb: vars.KNOWLEDGE_PARSE_MEMORY_MB,
    embeddings: vars.EMBEDDINGS_PROVIDER
      ? Object.freeze({
          provider: vars.EMBEDDINGS_PROVIDER,
          model: vars.EMBEDDINGS_MODEL ?? defaultModelOf(vars.EMBEDDINGS_PROVIDER),
          dimensions: vars.EMBEDDINGS_DIMENSIONS,
        })
      : vars.EMBEDDINGS_BASE_URL
        ? Object.freeze({
            provider: null,
            baseUrl: vars.EMBEDDINGS_BASE_URL.replace(/\/+$/, ''),
            apiKey: vars.EMBEDDINGS_API_KEY ?? null,
            model: vars.EMBEDDINGS_MODEL ?? defaultModelOf(undefined),
            dimensions: vars.EMBEDDINGS_DIMENSIONS,
          })
        : null,
  })

/** The protocol a registry provider's embeddings are reached with, and where; null: it has none. */
export const embeddingRouteOf = (provider: { api: string; baseUrl: string; openaiBaseUrl: string | null }) =>
  provider.api === 'google'
    ? { wire: 'gemini' as const, baseUrl: provider.baseUrl }
    : provider.openaiBaseUrl !== null
      ? { wire: 'openai' as const, baseUrl: provider.openaiBaseUrl }
      : null
