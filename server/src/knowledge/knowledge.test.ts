import type { ServerResponse } from 'node:http'
import type { KnowledgeSource } from '@parley/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signUp } from '../../test/helpers/accounts.ts'
import { type HttpTarget, type ReceivedRequest, startHttpTarget } from '../../test/helpers/http-target.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { makePdf } from './test-fixtures.ts'

const page = (title: string, body: string, links: string[] = []) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p>${links
    .map((href) => `<a href="${href}">${href}</a>`)
    .join(' ')}</main></body></html>`

/** A small site on loopback: robots.txt disallowing /private, a redirect, a page that changes. */
let changingVersion = 1
const site: Record<string, () => { status?: number; headers?: Record<string, string>; body?: string }> = {
  '/robots.txt': () => ({
    body: 'User-agent: *\nDisallow: /private\n',
    headers: { 'content-type': 'text/plain' },
  }),
  '/': () => ({
    body: page('Acme home', 'Welcome to the Acme kettle shop, serving the city since 1990.', [
      '/hours',
      '/private/staff',
      '/moved',
      '/changing',
    ]),
  }),
  '/hours': () => ({
    body: page('Opening hours', 'We are open Monday to Friday from nine to five. Closed on public holidays.'),
    headers: { etag: '"hours-1"' },
  }),
  '/private/staff': () => ({ body: page('Staff only', 'The safe combination is 1234.') }),
  '/moved': () => ({ status: 301, headers: { location: '/returns' } }),
  '/returns': () => ({
    body: page('Returns', 'Kettles may be returned within thirty days with the receipt.'),
  }),
  '/changing': () => ({
    body: page(
      'News',
      changingVersion === 1 ? 'Our spring sale starts in March.' : 'Our autumn sale starts in October.',
    ),
  }),
}

const serveSite = (request: ReceivedRequest, response: ServerResponse) => {
  const path = request.url.split('?')[0] ?? '/'
  const route = site[path]
  if (!route) {
    response.writeHead(404).end('not found')
    return
  }
  const { status = 200, headers = {}, body = '' } = route()
  if (headers.etag && request.headers['if-none-match'] === headers.etag) {
    response.writeHead(304, { etag: headers.etag }).end()
    return
  }
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body)
}

let server: TestServer
let target: HttpTarget
let token: string

beforeAll(async () => {
  target = await startHttpTarget(serveSite)
  server = await startTestServer({
    env: {
      OUTBOUND_ALLOW_HOSTS: target.hostAndPort,
      KNOWLEDGE_CRAWL_DELAY_MS: '0',
      KNOWLEDGE_MAX_SOURCES: '8',
      KNOWLEDGE_MAX_FILE_BYTES: '200000',
    },
  })
  token = await signUpUnlimited()
})

/** A fresh organization whose v1 budget polling cannot exhaust (the free tier allows 60 a minute). */
const signUpUnlimited = async () => {
  const session = await signUp(server)
  await server.request(`/admin/organizations/${session.organization.id}`, {
    method: 'PATCH',
    token: server.config.adminToken,
    json: { tier: 'enterprise', rateLimitPerMinute: 100_000 },
  })
  return session.token
}

afterAll(async () => {
  await server?.destroy()
  await target?.close()
})

const create = async (json: unknown, as = token) =>
  server.request('/v1/knowledge/sources', { method: 'POST', token: as, json })

const upload = async (file: Buffer, name: string, fields: Record<string, string> = {}) => {
  const form = new FormData()
  form.set('kind', 'file')
  for (const [key, value] of Object.entries(fields)) form.set(key, value)
  form.set('file', new Blob([new Uint8Array(file)]), name)
  return server.request('/v1/knowledge/sources', { method: 'POST', token, body: form })
}

const sourceOf = async (id: string, as = token) => {
  const response = await server.request(`/v1/knowledge/sources/${id}`, { token: as })
  return { status: response.status, source: ((await response.json()) as { data: KnowledgeSource }).data }
}

const settled = async (id: string) => {
  await expect
    .poll(async () => (await sourceOf(id)).source.status, { timeout: 45_000, interval: 50 })
    .toMatch(/ready|failed/)
  return (await sourceOf(id)).source
}

const search = async (q: string, as = token) => {
  const response = await server.request(`/v1/knowledge/search?q=${encodeURIComponent(q)}`, { token: as })
  expect(response.status).toBe(200)
  return (
    (await response.json()) as {
      data: {
        mode: string
        passages: { title: string; url: string | null; text: string; page: number | null }[]
      }
    }
  ).data
}

describe('knowledge sources', { timeout: 60_000 }, () => {
  it('crawls a site: progress, robots.txt, redirects, and a re-fetch that skips unchanged pages', async () => {
    const created = await create({ kind: 'site', url: `${target.origin}/`, maxPages: 10 })
    expect(created.status).toBe(202)
    const { data } = (await created.json()) as { data: KnowledgeSource }
    expect(data.status).toBe('queued')
    const ready = await settled(data.id)
    expect(ready).toMatchObject({
      status: 'ready',
      progress: { pagesDone: 4, pagesFound: 4 },
      pageErrors: [],
    })
    expect(target.received.some(({ url }) => url.startsWith('/private'))).toBe(false)

    const found = await search('When are you open?')
    expect(found.mode).toBe('fulltext')
    expect(found.passages[0]).toMatchObject({ title: 'Opening hours', url: `${target.origin}/hours` })
    expect((await search('returned within thirty days')).passages[0]?.url).toBe(`${target.origin}/moved`)
    expect((await search('safe combination')).passages).toEqual([])

    changingVersion = 2
    const before = target.received.length
    const refetch = await server.request(`/v1/knowledge/sources/${data.id}/refetch`, {
      method: 'POST',
      token,
    })
    expect(refetch.status).toBe(202)
    await settled(data.id)
    const hours = target.received.slice(before).find(({ url }) => url === '/hours')
    expect(hours?.headers['if-none-match']).toBe('"hours-1"')
    expect((await search('autumn sale')).passages[0]?.title).toBe('News')
    expect((await search('spring sale')).passages.some(({ text }) => text.includes('spring'))).toBe(false)
    expect((await search('open Monday')).passages[0]?.title).toBe('Opening hours')
  })

  it('reads a text snippet, a PDF upload and a single URL; fails an unreadable one with its reason', async () => {
    const text = await create({
      kind: 'text',
      title: 'Policies',
      text: '# Delivery\n\nFree delivery above fifty euros.',
    })
    const pdf = await upload(
      makePdf(['Descaling: use vinegar monthly.', 'Warranty: two years.']),
      'manual.pdf',
    )
    const url = await create({ kind: 'url', url: `${target.origin}/hours` })
    const missing = await create({ kind: 'url', url: `${target.origin}/nowhere` })
    const ids = await Promise.all(
      [text, pdf, url, missing].map(async (response) => {
        expect(response.status).toBe(202)
        return ((await response.json()) as { data: KnowledgeSource }).data.id
      }),
    )
    const [textSource, pdfSource, urlSource, missingSource] = await Promise.all(ids.map(settled))
    expect(textSource).toMatchObject({ status: 'ready', chunkCount: 1 })
    expect(pdfSource).toMatchObject({ status: 'ready', fileType: 'pdf', chunkCount: 2 })
    expect(urlSource).toMatchObject({ status: 'ready' })
    expect(missingSource).toMatchObject({ status: 'failed', error: 'HTTP 404' })
    expect((await search('warranty')).passages[0]).toMatchObject({ title: 'manual.pdf', page: 2 })
    expect((await search('free delivery')).passages[0]?.title).toBe('Policies › Delivery')
  })

  it('refuses bad input with clear 4xx codes and hides other organizations', async () => {
    const lying = await upload(Buffer.from('just words'), 'fake.pdf')
    expect(lying.status).toBe(415)
    expect(await lying.json()).toMatchObject({ code: 'unsupported_file_type' })
    const tooBig = await upload(Buffer.alloc(300_000, 'a'), 'big.txt')
    expect(tooBig.status).toBe(413)
    const privateUrl = await create({ kind: 'url', url: 'https://10.0.0.1/secret' })
    expect(privateUrl.status).toBe(400)
    const unknownField = await create({ kind: 'text', title: 'x', text: 'y', extra: 1 })
    expect(unknownField.status).toBe(400)
    expect((await create({ kind: 'file' })).status).toBe(400)

    const other = { token: await signUpUnlimited() }
    const listed = await server.request('/v1/knowledge/sources', { token: other.token })
    expect(((await listed.json()) as { data: unknown[] }).data).toEqual([])
    const [mine] = (
      (await (await server.request('/v1/knowledge/sources', { token })).json()) as { data: KnowledgeSource[] }
    ).data
    expect((await sourceOf(mine?.id ?? '', other.token)).status).toBe(404)
    expect(
      (await server.request(`/v1/knowledge/sources/${mine?.id}`, { method: 'DELETE', token: other.token }))
        .status,
    ).toBe(404)
    expect((await search('warranty', other.token)).passages).toEqual([])
  })

  it('enforces the source quota and deletes a source with its chunks', async () => {
    const listed = (
      (await (await server.request('/v1/knowledge/sources', { token })).json()) as { data: KnowledgeSource[] }
    ).data
    for (let index = listed.length; index < 8; index += 1) {
      const response = await create({ kind: 'text', title: `Filler ${index}`, text: 'filler words' })
      expect(response.status).toBe(202)
    }
    const refused = await create({ kind: 'text', title: 'One too many', text: 'nope' })
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({ success: false, code: 'knowledge_quota_exceeded' })

    const pdf = listed.find(({ fileType }) => fileType === 'pdf')
    const deleted = await server.request(`/v1/knowledge/sources/${pdf?.id}`, { method: 'DELETE', token })
    expect(deleted.status).toBe(200)
    expect((await search('warranty')).passages).toEqual([])
  })
})
