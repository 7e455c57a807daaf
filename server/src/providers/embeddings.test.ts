import { randomBytes } from 'node:crypto'
import type { KnowledgeSource } from '@parley/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeEmbeddings, startFakeGeminiEmbeddings } from '../../test/helpers/fake-embeddings.ts'
import type { HttpTarget } from '../../test/helpers/http-target.ts'
import { createTeam } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { type Config, ConfigError, loadConfig } from '../config.ts'
import type { AppContext } from '../context.ts'
import { embedTexts, resolveEmbeddingEndpoint } from './embeddings.ts'

/**
 * Embeddings through the provider registry: Gemini's own wire format and OpenAI's, each fake on
 * loopback, with the organization's stored key for that provider (sent to that provider only)
 * and the platform's key otherwise. One server (EMBEDDINGS_PROVIDER=gemini); the OpenAI case reads
 * the same database and key store under a configuration that names openai instead.
 */

const PLATFORM_GEMINI_KEY = 'platform-gemini-key-0001'
const PLATFORM_OPENAI_KEY = 'sk-platform-openai-0002'
const ORG_GEMINI_KEY = 'org-gemini-key-0003'
const ORG_OPENAI_KEY = 'sk-org-openai-0004'
const DIMENSIONS = 8

/** The test PostgreSQL has no pgvector; PGlite loads its extension package. */
const hasVectors = !process.env.TEST_DATABASE_URL

let gemini: HttpTarget
let openai: HttpTarget & { baseUrl: string }
let server: TestServer
let withKeys: Awaited<ReturnType<typeof createTeam>>
let withoutKeys: Awaited<ReturnType<typeof createTeam>>

beforeAll(async () => {
  gemini = await startFakeGeminiEmbeddings({ dimensions: DIMENSIONS })
  openai = await startFakeEmbeddings({ dimensions: DIMENSIONS })
  server = await startTestServer({
    env: {
      GEMINI_BASE_URL: gemini.origin,
      GEMINI_API_KEY: PLATFORM_GEMINI_KEY,
      OPENAI_BASE_URL: openai.baseUrl,
      OPENAI_API_KEY: PLATFORM_OPENAI_KEY,
      EMBEDDINGS_PROVIDER: 'gemini',
      EMBEDDINGS_DIMENSIONS: String(DIMENSIONS),
    },
  })
  ;[withKeys, withoutKeys] = await Promise.all([createTeam(server), createTeam(server)])
  const stored = await server.request(`/api/organizations/${withKeys.organizationId}/provider-keys`, {
    method: 'PUT',
    token: withKeys.owner.session.token,
    json: { keys: { gemini: ORG_GEMINI_KEY, openai: ORG_OPENAI_KEY } },
  })
  expect(stored.status).toBe(200)
}, 180_000)
afterAll(async () => {
  await server?.destroy()
  await gemini?.close()
  await openai?.close()
})

/** The server's context with another embeddings setting (same database, same key store). */
const withEmbeddings = (embeddings: Config['knowledge']['embeddings']): AppContext => ({
  ...server.ctx,
  config: { ...server.ctx.config, knowledge: { ...server.ctx.config.knowledge, embeddings } },
})

/** The endpoint, which these organizations always have here. */
const endpointFor = async (ctx: AppContext, organizationId: string) => {
  const endpoint = await resolveEmbeddingEndpoint(ctx, organizationId)
  if (!endpoint) throw new Error(`no embedding endpoint for ${organizationId}`)
  return endpoint
}

const keysSeen = (target: HttpTarget) =>
  target.received.map((request) => request.headers['x-goog-api-key'] ?? request.headers.authorization)

describe('embeddings through the provider registry', { timeout: 60_000 }, () => {
  it("speaks Gemini's embedContent and batchEmbedContents with the organization's own key, the platform's otherwise", async () => {
    gemini.received.length = 0
    const own = await endpointFor(server.ctx, withKeys.organizationId)
    expect(own).toMatchObject({
      wire: 'gemini',
      baseUrl: gemini.origin,
      model: 'gemini-embedding-001',
      keySource: 'organization',
    })
    const documents = await embedTexts(own, ['Kettles may be returned.', 'The courier comes on Tuesdays.'])
    expect(documents).toHaveLength(2)
    expect(documents[0]).toHaveLength(DIMENSIONS)
    const [query] = await embedTexts(own, ['Can I get a refund?'], 'query')
    expect(query).toHaveLength(DIMENSIONS)

    const [batch, single] = gemini.received
    expect(batch?.url).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents')
    expect(JSON.parse(batch?.body ?? '{}')).toMatchObject({
      requests: [
        {
          model: 'models/gemini-embedding-001',
          content: { parts: [{ text: 'Kettles may be returned.' }] },
          taskType: 'RETRIEVAL_DOCUMENT',
          outputDimensionality: DIMENSIONS,
        },
        { content: { parts: [{ text: 'The courier comes on Tuesdays.' }] } },
      ],
    })
    expect(single?.url).toBe('/v1beta/models/gemini-embedding-001:embedContent')
    expect(JSON.parse(single?.body ?? '{}')).toMatchObject({ taskType: 'RETRIEVAL_QUERY' })

    const platform = await endpointFor(server.ctx, withoutKeys.organizationId)
    expect(platform).toMatchObject({ keySource: 'platform', apiKey: PLATFORM_GEMINI_KEY })
    await embedTexts(platform, ['Opening hours'], 'query')
    expect(keysSeen(gemini)).toEqual([ORG_GEMINI_KEY, ORG_GEMINI_KEY, PLATFORM_GEMINI_KEY])
    // The organization's OpenAI key, and OpenAI's platform key, never went to Gemini.
    expect(JSON.stringify(gemini.received)).not.toContain(ORG_OPENAI_KEY)
    expect(JSON.stringify(gemini.received)).not.toContain(PLATFORM_OPENAI_KEY)
  })

  it("speaks OpenAI's /embeddings with the organization's OpenAI key, never its Gemini key", async () => {
    openai.received.length = 0
    const ctx = withEmbeddings({
      provider: 'openai',
      model: 'text-embedding-3-small',
      dimensions: DIMENSIONS,
    })
    const own = await endpointFor(ctx, withKeys.organizationId)
    expect(own).toMatchObject({ wire: 'openai', baseUrl: openai.baseUrl, keySource: 'organization' })
    expect(await embedTexts(own, ['a', 'b', 'c'])).toHaveLength(3)
    const platform = await endpointFor(ctx, withoutKeys.organizationId)
    await embedTexts(platform, ['d'], 'query')
    expect(openai.received.map((request) => request.url)).toEqual(['/v1/embeddings', '/v1/embeddings'])
    expect(JSON.parse(openai.received[0]?.body ?? '{}')).toEqual({
      model: 'text-embedding-3-small',
      input: ['a', 'b', 'c'],
      dimensions: DIMENSIONS,
    })
    expect(keysSeen(openai)).toEqual([`Bearer ${ORG_OPENAI_KEY}`, `Bearer ${PLATFORM_OPENAI_KEY}`])
    expect(JSON.stringify(openai.received)).not.toContain(ORG_GEMINI_KEY)

    // A provider the platform has no key for: the organization's key or nothing (full-text only).
    const groq = withEmbeddings({ provider: 'groq', model: 'any', dimensions: DIMENSIONS })
    expect(await resolveEmbeddingEndpoint(groq, withoutKeys.organizationId)).toBeNull()
  })

  it('refuses vectors of the wrong size or number, and an endpoint that fails', async () => {
    // The OpenAI fake answers its own size whatever is asked.
    const ctx = withEmbeddings({ provider: 'openai', model: 'm', dimensions: DIMENSIONS + 1 })
    await expect(embedTexts(await endpointFor(ctx, withoutKeys.organizationId), ['x'])).rejects.toThrow(
      /wrong number or size/,
    )
    const endpoint = await endpointFor(server.ctx, withoutKeys.organizationId)
    await expect(embedTexts({ ...endpoint, apiKey: null }, ['x'])).rejects.toThrow(/HTTP 403/)
  })

  it('embeds a source and searches it with the organization’s key (hybrid where the database has pgvector)', async () => {
    gemini.received.length = 0
    const created = await server.request('/v1/knowledge/sources', {
      method: 'POST',
      token: withKeys.owner.session.token,
      json: {
        kind: 'text',
        title: 'Policies',
        text: '# Returns\n\nKettles may be returned within thirty days.\n\n# Delivery\n\nThe courier comes on Tuesdays.',
      },
    })
    expect(created.status).toBe(202)
    const { id } = ((await created.json()) as { data: KnowledgeSource }).data
    const statusOf = async () =>
      (
        (await (
          await server.request(`/v1/knowledge/sources/${id}`, { token: withKeys.owner.session.token })
        ).json()) as { data: KnowledgeSource }
      ).data.status
    await expect.poll(statusOf, { timeout: 45_000, interval: 50 }).toBe('ready')
    const response = await server.request(
      `/v1/knowledge/search?q=${encodeURIComponent('Can I get a refund?')}`,
      { token: withKeys.owner.session.token },
    )
    const { data } = (await response.json()) as { data: { mode: string; passages: { title: string }[] } }
    if (hasVectors) {
      expect(data.mode).toBe('hybrid')
      expect(data.passages[0]?.title).toBe('Policies › Returns')
      expect(gemini.received.map((request) => request.url.split(':')[1])).toEqual([
        'batchEmbedContents',
        'embedContent',
      ])
      expect(new Set(keysSeen(gemini))).toEqual(new Set([ORG_GEMINI_KEY]))
    } else {
      expect(data.mode).toBe('fulltext')
      expect(gemini.received).toEqual([])
    }
  })

  it('checks EMBEDDINGS_PROVIDER at start', () => {
    // Every secret given, so nothing is generated into a DATA_DIR.
    const base = {
      NODE_ENV: 'test',
      JWT_SECRET: randomBytes(32).toString('hex'),
      ADMIN_TOKEN: randomBytes(32).toString('hex'),
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    }
    const problemOf = (env: Record<string, string>) => {
      try {
        loadConfig({ ...base, ...env })
        return null
      } catch (error) {
        return error instanceof ConfigError ? error.message : String(error)
      }
    }
    expect(problemOf({ EMBEDDINGS_PROVIDER: 'nobody' })).toMatch(/EMBEDDINGS_PROVIDER names no provider/)
    expect(problemOf({ EMBEDDINGS_PROVIDER: 'deepgram' })).toMatch(/Deepgram serves no embeddings/)
    expect(
      problemOf({ EMBEDDINGS_PROVIDER: 'openai', EMBEDDINGS_BASE_URL: 'http://127.0.0.1:9/v1' }),
    ).toMatch(/exclusive/)
    expect(problemOf({ EMBEDDINGS_PROVIDER: 'gemini' })).toBeNull()
  })
})
