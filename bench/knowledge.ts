import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createParser } from 'eventsource-parser'
import { sql } from 'kysely'
import { ulid } from 'ulid'
import { searchPassages } from '../server/src/knowledge/index.ts'
import { vectorHooksOf } from '../server/src/knowledge/vector-hooks.ts'
import { start } from '../server/src/server.ts'
import { startFakeEmbeddings } from '../server/test/helpers/fake-embeddings.ts'
import { startFakeLlm } from '../server/test/helpers/fake-llm.ts'
import { benchConfig } from './bench-config.ts'
import { callJson } from './bench-tenant.ts'
import { percentile } from './stats.ts'

/**
 * `npm run bench -- knowledge`: a site of SITE_PAGES pages crawled from loopback (pages/s, crawl
 * delay 0: the parsing and indexing rate), then KNOWLEDGE_CHUNKS (100,000) chunks seeded into one
 * organization and searched in process (full-text, vector, hybrid: p50/p99), then a chat reply's
 * first-chunk latency over HTTP from an agent with those sources against one without.
 * KNOWLEDGE_OTHER_CHUNKS adds other organizations' chunks to the table (a shared server's case). The
 * embedded database unless DATABASE_URL is set; vectors need pgvector (PGlite's package, or the server's).
 */
const SITE_PAGES = Number(process.env.SITE_PAGES ?? 100)
const CHUNKS = Number(process.env.KNOWLEDGE_CHUNKS ?? 100_000)
/** Chunks of four other organizations in the same table: a tenant's search should not pay for them. */
const OTHER_CHUNKS = Number(process.env.KNOWLEDGE_OTHER_CHUNKS ?? 0)
const DIMENSIONS = 64
const SEARCH_RUNS = 200
const CHAT_RUNS = 40

const words = (
  'order refund parcel delivery late address invoice card return size colour kettle shirt shoes ' +
  'warranty repair opening hours monday friday price discount courier account password store city'
).split(' ')
const questions = [
  'When are you open on Monday?',
  'How do I return a kettle?',
  'Is there a warranty on repairs?',
  'What does delivery to my city cost?',
  'I forgot my account password',
]

const pageHtml = (n: number) =>
  `<!doctype html><html><head><title>Page ${n}</title></head><body><main><h1>Topic ${n}</h1>${Array.from(
    { length: 6 },
    (_, p) =>
      `<h2>Part ${p}</h2><p>${Array.from({ length: 60 }, (_, w) => words[(n * 7 + p * 3 + w) % words.length]).join(' ')}.</p>`,
  ).join('')}</main></body></html>`

const startSite = async () => {
  const server = createServer((request, response) => {
    const path = request.url ?? '/'
    if (path === '/robots.txt') return response.end('User-agent: *\nAllow: /\n')
    if (path === '/sitemap.xml') {
      const locs = Array.from(
        { length: SITE_PAGES },
        (_, n) => `<url><loc>http://127.0.0.1:${port}/p/${n}</loc></url>`,
      )
      response.writeHead(200, { 'content-type': 'application/xml' })
      return response.end(`<?xml version="1.0"?><urlset>${locs.join('')}</urlset>`)
    }
    const page = path.match(/^\/p\/(\d+)$/)
    if (!page) return response.writeHead(404).end()
    response.writeHead(200, { 'content-type': 'text/html' }).end(pageHtml(Number(page[1])))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

const timed = async (runs: number, once: (run: number) => Promise<unknown>) => {
  await once(0)
  const times: number[] = []
  for (let run = 0; run < runs; run++) {
    const started = performance.now()
    await once(run)
    times.push(performance.now() - started)
  }
  return times
}

const report = (label: string, times: number[]) =>
  process.stdout.write(
    `${label.padEnd(44)} p50 ${percentile(times, 50).toFixed(1).padStart(7)} ms   p99 ${percentile(times, 99).toFixed(1).padStart(7)} ms\n`,
  )

/** Time from sending a message to its reply's first chunk, over HTTP. */
const firstChunkMs = async (
  url: string,
  session: { conversation_id: string; session_token: string },
  message: string,
) => {
  const started = performance.now()
  const response = await fetch(`${url}/v1/chat/sessions/${session.conversation_id}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${session.session_token}` },
    body: JSON.stringify({ message }),
  })
  let first = 0
  const parser = createParser({
    onEvent: (event) => {
      if (event.event === 'chunk' && first === 0) first = performance.now() - started
    },
  })
  const decoder = new TextDecoder()
  for await (const part of response.body as unknown as AsyncIterable<Uint8Array>)
    parser.feed(decoder.decode(part, { stream: true }))
  return first
}

export const run = async () => {
  const site = await startSite()
  const llm = await startFakeLlm()
  const embeddings = await startFakeEmbeddings({ dimensions: DIMENSIONS })
  const { config, removeDataDir } = benchConfig({
    OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
    KNOWLEDGE_CRAWL_DELAY_MS: '0',
    KNOWLEDGE_MAX_CHUNKS: '10000000',
    KNOWLEDGE_MAX_BYTES: '100000000000',
    KNOWLEDGE_MAX_PAGES_PER_DAY: '1000000',
    LLM_BASE_URL: llm.baseUrl,
    LLM_API_KEY: 'bench',
    EMBEDDINGS_BASE_URL: embeddings.baseUrl,
    EMBEDDINGS_DIMENSIONS: String(DIMENSIONS),
    CHAT_MIN_BALANCE_USD: '0',
  })
  const server = await start({ config, seedDemo: false })
  const { ctx, url } = server
  const hasVectors = vectorHooksOf(ctx) !== null
  process.stdout.write(
    `knowledge bench: ${config.databaseUrl ? 'PostgreSQL' : 'embedded PGlite'}, vectors ${hasVectors ? `on (${DIMENSIONS} dims, fake embeddings on loopback)` : 'unavailable (no pgvector)'}\n`,
  )
  try {
    const signup = await callJson(`${url}/api/auth/signup`, {
      method: 'POST',
      json: {
        organizationName: 'Bench',
        name: 'Bench',
        email: `bench-${ulid()}@example.com`,
        password: 'correct horse battery staple',
      },
    })
    const token = signup.token as string
    const organizationId = (signup.organization as { id: string }).id
    await callJson(`${url}/admin/organizations/${organizationId}`, {
      method: 'PATCH',
      token: config.adminToken,
      json: { tier: 'enterprise', rateLimitPerMinute: 1_000_000 },
    })

    // 1. Ingest: the whole site through fetch, parse (worker thread), chunk, index (and embed).
    const started = performance.now()
    const created = await callJson(`${url}/v1/knowledge/sources`, {
      method: 'POST',
      token,
      json: { kind: 'site', url: `http://127.0.0.1:${site.port}/`, maxPages: Math.min(SITE_PAGES, 500) },
    })
    const siteId = (created.data as { id: string }).id
    for (;;) {
      const { data } = (await callJson(`${url}/v1/knowledge/sources/${siteId}`, { token })) as {
        data: { status: string; progress: { pagesDone: number }; chunkCount: number }
      }
      if (data.status === 'ready' || data.status === 'failed') {
        const seconds = (performance.now() - started) / 1000
        process.stdout.write(
          `ingest: ${data.progress.pagesDone} pages, ${data.chunkCount} chunks in ${seconds.toFixed(1)} s = ${(data.progress.pagesDone / seconds).toFixed(1)} pages/s (${data.status})\n`,
        )
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }

    // 2. Seed CHUNKS chunks into one more source: 120 words each from a 50,000-word vocabulary,
    // two of them from the questions' topics (each topic word in about 7% of the chunks). Loaded
    // as a few set-based inserts with the search indexes dropped, then the indexes built once over
    // the whole table (as the migration and startVectors define them) and the table analyzed.
    const seedStarted = performance.now()
    const sourceId = ulid()
    await sql`insert into knowledge_sources (id, organization_id, kind, title, language, status, bytes, created_at, updated_at)
      values (${sourceId}, ${organizationId}, 'text', 'Seeded', 'en', 'ready', 0, now(), now())`.execute(
      ctx.db,
    )
    // The full-text index as the migrations left it (by organization where btree_gin exists).
    const { rows: indexRows } = await sql<{ indexdef: string }>`
      select indexdef from pg_indexes where indexname = 'knowledge_chunks_tsv_idx'`.execute(ctx.db)
    const textIndex = indexRows[0]?.indexdef ?? ''
    await sql`drop index knowledge_chunks_tsv_idx`.execute(ctx.db)
    if (hasVectors) await sql`drop index knowledge_embeddings_hnsw_idx`.execute(ctx.db)
    const wordList = sql.raw(`array[${words.map((word) => `'${word}'`).join(',')}]`)
    for (let offset = 0; offset < CHUNKS; offset += 20_000) {
      const count = Math.min(20_000, CHUNKS - offset)
      await sql`insert into knowledge_chunks (organization_id, source_id, seq, title, content, language, tsv)
        select ${organizationId}, ${sourceId}, n, 'Seeded › Part ' || n, body, 'english',
          setweight(to_tsvector('english', 'Seeded › Part ' || n), 'A') || to_tsvector('english', body)
        from (select n, (select string_agg(case when k in (40, 80) then (${wordList})[1 + (abs(hashint4(n * 1000 + k)) % ${words.length}::int)]
                                               else 'w' || ((n * 131 + k * 977) % 50000) end, ' ') from generate_series(1, 120) k) as body
              from generate_series(${offset}::int, ${offset + count - 1}::int) n) s`.execute(ctx.db)
      if (hasVectors)
        await sql`insert into knowledge_embeddings (chunk_id, organization_id, source_id, embedding)
          select id, organization_id, source_id,
            (select array_agg(((id * 7919 + d * 104729) % 1000) / 1000.0)::real[] from generate_series(1, ${DIMENSIONS}::int) d)::vector
          from knowledge_chunks where source_id = ${sourceId} and seq >= ${offset} and seq < ${offset + count}`.execute(
          ctx.db,
        )
    }
    const others = Array.from({ length: OTHER_CHUNKS > 0 ? 4 : 0 }, (_, n) => n + 1)
    for (const other of others) {
      const otherOrg = `bench-other-${other}-${ulid()}`
      await sql`insert into organizations (id, name) values (${otherOrg}, 'Other')`.execute(ctx.db)
      await sql`insert into knowledge_sources (id, organization_id, kind, title, language, status, bytes, created_at, updated_at)
        values (${otherOrg}, ${otherOrg}, 'text', 'Other', 'en', 'ready', 0, now(), now())`.execute(ctx.db)
      await sql`insert into knowledge_chunks (organization_id, source_id, seq, title, content, language, tsv)
        select ${otherOrg}, ${otherOrg}, n, 'Other › Part ' || n, body, 'english',
          setweight(to_tsvector('english', 'Other › Part ' || n), 'A') || to_tsvector('english', body)
        from (select n, (select string_agg(case when k in (40, 80) then (${wordList})[1 + (abs(hashint4(n * 1000 + k + ${other}::int)) % ${words.length}::int)]
                                               else 'w' || ((n * 131 + k * 977 + ${other}::int) % 50000) end, ' ') from generate_series(1, 120) k) as body
              from generate_series(1, ${Math.ceil(OTHER_CHUNKS / 4)}::int) n) s`.execute(ctx.db)
    }
    const loaded = performance.now()
    // One transaction, so the larger build memory (GIN builds gain most from it) holds for both.
    await ctx.db.transaction().execute(async (trx) => {
      await sql`set local maintenance_work_mem = '256MB'`.execute(trx)
      await sql.raw(textIndex).execute(trx)
      if (hasVectors)
        await sql`create index knowledge_embeddings_hnsw_idx on knowledge_embeddings
          using hnsw (embedding vector_cosine_ops)`.execute(trx)
    })
    await sql`vacuum analyze knowledge_chunks`.execute(ctx.db)
    if (hasVectors) await sql`vacuum analyze knowledge_embeddings`.execute(ctx.db)
    const seeded = performance.now()
    process.stdout.write(
      `seeded ${CHUNKS} chunks${OTHER_CHUNKS > 0 ? ` (and ${OTHER_CHUNKS} of 4 other organizations)` : ''}; full-text index ${textIndex.includes('organization_id') ? 'by organization (btree_gin)' : 'by words only'}; in ${((seeded - seedStarted) / 1000).toFixed(1)} s (rows ${((loaded - seedStarted) / 1000).toFixed(1)} s, indexes and analyze ${((seeded - loaded) / 1000).toFixed(1)} s)\n`,
    )

    // 3. Retrieval, in process (the reply's own call), 5 at a time as a reply asks.
    const input = (run: number) => ({
      organizationId,
      sourceIds: [sourceId],
      query: questions[run % questions.length] as string,
      limit: 5,
    })
    const hooks = vectorHooksOf(ctx)
    if (hooks) {
      const vectorOnly = await timed(SEARCH_RUNS, (run) => hooks.search({ ...input(run), limit: 20 }))
      report(`vector search (${CHUNKS} chunks, incl. embedding call)`, vectorOnly)
      report(
        `hybrid search (${CHUNKS} chunks)`,
        await timed(SEARCH_RUNS, (run) => searchPassages(ctx, input(run))),
      )
    }
    // Full-text alone, as a reply retrieves (8 candidates; the sources' languages read first): a
    // copy of the context has no vector hooks, so the same function runs without vectors.
    const fullTextOnly = { ...ctx }
    report(
      `full-text search (${CHUNKS} chunks, a reply's retrieval)`,
      await timed(SEARCH_RUNS, (run) => searchPassages(fullTextOnly, { ...input(run), limit: 8 })),
    )
    for (const [index, question] of questions.entries())
      report(
        `  "${question}"`.slice(0, 44),
        await timed(SEARCH_RUNS / 5, () =>
          searchPassages(fullTextOnly, { ...input(index), query: question, limit: 8 }),
        ),
      )

    // 4. First-chunk latency: an agent with the seeded source against one without.
    const key = (
      (await callJson(`${url}/api/api-keys`, {
        method: 'POST',
        token,
        json: { name: 'bench', type: 'secret' },
      })) as { key: string }
    ).key
    const agentOf = async (knowledgeSourceIds: string[]) =>
      (
        (await callJson(`${url}/v1/agents`, {
          method: 'POST',
          headers: { 'x-api-key': key },
          json: {
            name: `Agent ${knowledgeSourceIds.length}`,
            agentArchitecture: 'text',
            systemPrompt: 'You help.',
            knowledgeSourceIds,
          },
        })) as { data: { id: string } }
      ).data.id
    for (const [label, sources] of [
      ['without knowledge', []],
      [`with knowledge (${CHUNKS} chunks)`, [sourceId]],
    ] as const) {
      const agentId = await agentOf([...sources])
      const session = (await callJson(`${url}/v1/chat/sessions`, {
        method: 'POST',
        headers: { 'x-api-key': key },
        json: { agent_id: agentId },
      })) as {
        conversation_id: string
        session_token: string
      }
      const times: number[] = []
      for (let run = 0; run <= CHAT_RUNS; run++) {
        const ms = await firstChunkMs(url, session, questions[run % questions.length] as string)
        if (run > 0) times.push(ms)
      }
      report(`first chunk, ${label}`, times)
    }
  } finally {
    await server.stop()
    await site.close()
    await llm.close()
    await embeddings.close()
    removeDataDir()
  }
}
