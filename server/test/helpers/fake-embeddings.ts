import { respondJson, startHttpTarget } from './http-target.ts'

/** Words that mean the same thing share a dimension, so vectors find what full-text cannot. */
const concepts = [
  ['refund', 'refunds', 'returned', 'return', 'returns', 'money', 'back'],
  ['open', 'opening', 'hours', 'closed', 'monday', 'friday'],
  ['kettle', 'kettles', 'teapot', 'boil'],
  ['delivery', 'deliver', 'shipping', 'ship', 'courier'],
  ['price', 'prices', 'cost', 'costs', 'euros'],
  ['warranty', 'guarantee', 'broken', 'repair'],
]

/** A deterministic embedding: concept counts (plus a constant), normalized. */
export const embedFake = (text: string, dimensions: number) => {
  const vector = new Array<number>(dimensions).fill(0)
  vector[dimensions - 1] = 0.1
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const index = concepts.findIndex((group) => group.includes(word))
    if (index >= 0 && index < dimensions - 1) vector[index] = (vector[index] ?? 0) + 1
  }
  const length = Math.hypot(...vector)
  return vector.map((value) => value / length)
}

/** An OpenAI-compatible /v1/embeddings server on loopback. */
export const startFakeEmbeddings = async ({ dimensions = 8 } = {}) => {
  const target = await startHttpTarget((request, response) => {
    if (request.url !== '/v1/embeddings') return respondJson(response, 404, { error: 'not found' })
    const { input } = JSON.parse(request.body) as { input: string[] }
    respondJson(response, 200, {
      object: 'list',
      data: input.map((text, index) => ({
        object: 'embedding',
        index,
        embedding: embedFake(text, dimensions),
      })),
      model: 'fake-embedding',
      usage: { prompt_tokens: 0, total_tokens: 0 },
    })
  })
  return { ...target, baseUrl: `${target.origin}/v1`, dimensions }
}

/**
 * Gemini's own embeddings API on loopback: `POST /v1beta/models/{model}:embedContent` (one text)
 * and `:batchEmbedContents` (several), the key in `x-goog-api-key`, vectors as `values`.
 */
export const startFakeGeminiEmbeddings = async ({ dimensions = 8 } = {}) => {
  type GeminiRequest = {
    model: string
    content: { parts: { text: string }[] }
    outputDimensionality?: number
  }
  const vectorOf = (request: GeminiRequest) => ({
    values: embedFake(
      request.content.parts.map((part) => part.text).join(' '),
      request.outputDimensionality ?? dimensions,
    ),
  })
  const target = await startHttpTarget((request, response) => {
    const match = request.url.match(/^\/v1beta\/models\/([\w.-]+):(embedContent|batchEmbedContents)$/)
    if (!match || request.method !== 'POST') return respondJson(response, 404, { error: { code: 404 } })
    if (!request.headers['x-goog-api-key'])
      return respondJson(response, 403, { error: { code: 403, status: 'PERMISSION_DENIED' } })
    const body = JSON.parse(request.body) as GeminiRequest & { requests?: GeminiRequest[] }
    if (match[2] === 'embedContent') return respondJson(response, 200, { embedding: vectorOf(body) })
    respondJson(response, 200, { embeddings: (body.requests ?? []).map(vectorOf) })
  })
  return { ...target, dimensions }
}
