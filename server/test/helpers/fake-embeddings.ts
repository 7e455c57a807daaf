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
