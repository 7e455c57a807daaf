import { embeddingRouteOf } from '../config-knowledge.ts'
import type { AppContext } from '../context.ts'

/**
 * Embeddings through the provider registry: EMBEDDINGS_PROVIDER names a provider (OpenAI, Gemini,
 * or one of PROVIDERS_FILE's), whose endpoint is spoken in its own wire format (OpenAI-compatible
 * `/embeddings`, or Gemini's `embedContent` / `batchEmbedContents`), with the organization's own
 * key for that provider when it stored one and the platform's otherwise. EMBEDDINGS_BASE_URL (an
 * OpenAI-compatible endpoint with EMBEDDINGS_API_KEY) is the development shortcut, as LLM_BASE_URL
 * is for models. A key is sent only to its own provider's base URL, and never across a redirect.
 */

const EMBED_TIMEOUT_MS = 30_000

export type EmbeddingWire = 'openai' | 'gemini'

/** Where one organization's texts are embedded, with which key. */
export type EmbeddingEndpoint = Readonly<{
  wire: EmbeddingWire
  baseUrl: string
  apiKey: string | null
  model: string
  dimensions: number
  keySource: 'organization' | 'platform'
}>

/** Documents and questions are embedded for retrieval; Gemini is told which one it has. */
export type EmbeddingTask = 'document' | 'query'

/**
 * The organization's embedding endpoint: null when no embedding model is configured, or its
 * provider has neither the organization's key nor the platform's (its search stays full-text).
 */
export const resolveEmbeddingEndpoint = async (
  ctx: AppContext,
  organizationId: string,
): Promise<EmbeddingEndpoint | null> => {
  const settings = ctx.config.knowledge.embeddings
  if (!settings) return null
  const { model, dimensions } = settings
  if (settings.provider === null)
    return {
      wire: 'openai',
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      model,
      dimensions,
      keySource: 'platform',
    }
  const provider = ctx.config.providers[settings.provider]
  const route = provider ? embeddingRouteOf(provider) : null
  if (!provider || !route) return null
  const organizationKey =
    (await ctx.readProviderKeys(ctx, { organizationId, providers: [provider.id] })).get(provider.id) ?? null
  if (organizationKey !== null)
    return { ...route, apiKey: organizationKey, model, dimensions, keySource: 'organization' }
  if (!provider.isConfigured) return null
  return { ...route, apiKey: provider.apiKey, model, dimensions, keySource: 'platform' }
}

const post = async (url: string, headers: Record<string, string>, body: unknown) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    // A redirect would carry the key to wherever it points.
    redirect: 'error',
    signal: AbortSignal.timeout(EMBED_TIMEOUT_MS),
  })
  if (!response.ok) throw new Error(`the embeddings endpoint answered HTTP ${response.status}`)
  return (await response.json()) as unknown
}

const openaiVectors = async (endpoint: EmbeddingEndpoint, texts: string[]) => {
  const body = (await post(
    `${endpoint.baseUrl}/embeddings`,
    endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {},
    { model: endpoint.model, input: texts, dimensions: endpoint.dimensions },
  )) as { data?: { index: number; embedding: number[] }[] }
  return [...(body.data ?? [])].sort((a, b) => a.index - b.index).map(({ embedding }) => embedding)
}

/** Gemini's own API: one text through `embedContent`, several through `batchEmbedContents`. */
const geminiVectors = async (endpoint: EmbeddingEndpoint, texts: string[], task: EmbeddingTask) => {
  const model = `models/${endpoint.model}`
  const headers: Record<string, string> = endpoint.apiKey ? { 'x-goog-api-key': endpoint.apiKey } : {}
  const request = (text: string) => ({
    model,
    content: { parts: [{ text }] },
    taskType: task === 'query' ? 'RETRIEVAL_QUERY' : 'RETRIEVAL_DOCUMENT',
    outputDimensionality: endpoint.dimensions,
  })
  const base = `${endpoint.baseUrl}/v1beta/${model}`
  if (texts.length === 1) {
    const body = (await post(`${base}:embedContent`, headers, request(texts[0] as string))) as {
      embedding?: { values?: number[] }
    }
    return body.embedding?.values ? [body.embedding.values] : []
  }
  const body = (await post(`${base}:batchEmbedContents`, headers, { requests: texts.map(request) })) as {
    embeddings?: { values?: number[] }[]
  }
  return (body.embeddings ?? []).map((embedding) => embedding.values ?? [])
}

/** The vectors of `texts`, in order; throws when the endpoint fails or answers the wrong number or size. */
export const embedTexts = async (
  endpoint: EmbeddingEndpoint,
  texts: string[],
  task: EmbeddingTask = 'document',
): Promise<number[][]> => {
  if (texts.length === 0) return []
  const vectors =
    endpoint.wire === 'gemini'
      ? await geminiVectors(endpoint, texts, task)
      : await openaiVectors(endpoint, texts)
  if (
    vectors.length !== texts.length ||
    vectors.some(
      (vector) =>
        !Array.isArray(vector) ||
        vector.length !== endpoint.dimensions ||
        vector.some((value) => typeof value !== 'number' || !Number.isFinite(value)),
    )
  )
    throw new Error('the embeddings endpoint answered vectors of the wrong number or size')
  return vectors
}
