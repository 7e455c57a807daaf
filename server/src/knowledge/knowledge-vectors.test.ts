import type { KnowledgeSource } from '@parley/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signUp } from '../../test/helpers/accounts.ts'
import { captureLog, logLevels } from '../../test/helpers/capture-log.ts'
import { startFakeEmbeddings } from '../../test/helpers/fake-embeddings.ts'
import type { HttpTarget } from '../../test/helpers/http-target.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

/** The test PostgreSQL has no pgvector; PGlite loads its extension package. */
const hasVectors = !process.env.TEST_DATABASE_URL

let embeddings: HttpTarget & { baseUrl: string }
let server: TestServer
const log = captureLog({ level: 'warn' })

beforeAll(async () => {
  embeddings = await startFakeEmbeddings({ dimensions: 8 })
  server = await startTestServer({
    env: {
      EMBEDDINGS_BASE_URL: embeddings.baseUrl,
      EMBEDDINGS_MODEL: 'fake-embedding',
      EMBEDDINGS_DIMENSIONS: '8',
    },
    logger: log.logger,
  })
})
afterAll(async () => {
  await server?.destroy()
  await embeddings?.close()
})

describe('knowledge search with an embedding model', { timeout: 60_000 }, () => {
  it('fuses vector and full-text ranks, or says once that the database has no pgvector', async () => {
    const { token } = await signUp(server)
    const created = await server.request('/v1/knowledge/sources', {
      method: 'POST',
      token,
      json: {
        kind: 'text',
        title: 'Policies',
        text: '# Returns\n\nKettles may be returned within thirty days.\n\n# Delivery\n\nThe courier comes on Tuesdays.',
      },
    })
    const { id } = ((await created.json()) as { data: KnowledgeSource }).data
    const statusOf = async () =>
      (
        (await (await server.request(`/v1/knowledge/sources/${id}`, { token })).json()) as {
          data: KnowledgeSource
        }
      ).data.status
    await expect.poll(statusOf, { timeout: 45_000, interval: 50 }).toBe('ready')

    // "refund" is in no passage: only its meaning (the returns concept) can find one.
    const response = await server.request(
      `/v1/knowledge/search?q=${encodeURIComponent('Can I get a refund?')}`,
      { token },
    )
    const { data } = (await response.json()) as { data: { mode: string; passages: { title: string }[] } }
    const warnings = log.lines.filter(
      ({ level, msg }) => level === logLevels.warn && msg?.includes('pgvector'),
    )
    if (hasVectors) {
      expect(data.mode).toBe('hybrid')
      expect(data.passages[0]?.title).toBe('Policies › Returns')
      expect(embeddings.received.length).toBeGreaterThanOrEqual(2)
      expect(warnings).toEqual([])
    } else {
      expect(data.mode).toBe('fulltext')
      expect(data.passages).toEqual([])
      expect(warnings).toHaveLength(1)
    }
  })
})
