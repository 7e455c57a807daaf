import { connect } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createKey, signUp } from './helpers/accounts.ts'
import { captureLog, logLevels } from './helpers/capture-log.ts'
import { createChatSession, createTextAgent } from './helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from './helpers/fake-llm.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let server: TestServer
let llm: FakeLlm
let key: string
let agentId: string
let studioToken: string
const log = captureLog({ level: 'warn' })
beforeAll(async () => {
  llm = await startFakeLlm()
  server = await startTestServer({ env: { LLM_BASE_URL: llm.baseUrl }, logger: log.logger })
  const owner = await signUp(server)
  studioToken = owner.token
  key = (await createKey(server, owner.token)).key
  agentId = await createTextAgent(server, key)
})
afterAll(async () => {
  await server.destroy()
  await llm.close()
})

const rawPost = (path: string, body: Buffer | string, headers: Record<string, string> = {}) =>
  server.request(path, {
    method: 'POST',
    body: typeof body === 'string' ? body : new Uint8Array(body),
    headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers },
  })

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`

describe('bad bytes answer 4xx, never 500', () => {
  it('NUL in a stored text (agent name, visitor message) is 400 and stores nothing', async () => {
    const agent = await rawPost(
      '/v1/agents',
      JSON.stringify({
        name: 'A\u0000B',
        agentArchitecture: 'text',
        model: 'gpt-4o-mini',
        systemPrompt: 'x',
      }),
    )
    expect(agent.status).toBe(400)
    expect(await agent.json()).toMatchObject({ success: false, code: 'invalid_encoding' })
    const session = await createChatSession(server, { key, agentId })
    const message = await server.request(`/v1/chat/sessions/${session.conversation_id}/messages`, {
      method: 'POST',
      token: session.session_token,
      json: { message: 'hi\u0000there' },
    })
    expect(message.status).toBe(400)
    expect(await message.json()).toMatchObject({ code: 'invalid_encoding', detail: expect.any(String) })
  })

  it('invalid UTF-8 in a JSON body is 400', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"name":"'),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('"}'),
    ])
    const response = await rawPost('/v1/agents', bytes)
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ code: 'invalid_encoding' })
  })

  it('gzip bodies are inflated; unknown encodings are 415; broken gzip is 400', async () => {
    const body = JSON.stringify({ agent_id: agentId })
    const gzipped = await rawPost('/v1/chat/sessions', gzipSync(body), { 'content-encoding': 'gzip' })
    expect(gzipped.status).toBe(200)
    const unknown = await rawPost('/v1/chat/sessions', body, { 'content-encoding': 'zstd-x' })
    expect(unknown.status).toBe(415)
    expect(await unknown.json()).toMatchObject({ code: 'unsupported_media_type' })
    const broken = await rawPost('/v1/chat/sessions', 'not gzip at all', { 'content-encoding': 'gzip' })
    expect(broken.status).toBe(400)
  })

  it('a body that does not decode as its gzip, deflate or br says so (400 invalid_encoding)', async () => {
    const truncated = gzipSync(JSON.stringify({ agent_id: agentId })).subarray(0, 12)
    for (const [encoding, body] of [
      ['gzip', Buffer.from('not gzip at all')],
      ['gzip', truncated],
      ['deflate', Buffer.from('not deflate')],
      ['br', Buffer.from('not brotli at all')],
    ] as const) {
      const response = await rawPost('/v1/chat/sessions', body, { 'content-encoding': encoding })
      expect({ encoding, status: response.status, body: await response.json() }).toEqual({
        encoding,
        status: 400,
        body: {
          detail: 'Request body could not be decoded as its Content-Encoding says (gzip, deflate or br)',
          code: 'invalid_encoding',
        },
      })
    }
  })

  it('a client that hangs up mid-body is logged as its abort (499 at warn), never as a failure', async () => {
    const hangUp = (head: string, partial: string) =>
      new Promise<void>((resolve, reject) => {
        const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () => {
          socket.write(`${head}\r\n\r\n${partial}`, () => {
            // The body's first bytes are in; the rest never comes.
            setImmediate(() => {
              socket.destroy()
              resolve()
            })
          })
        })
        socket.on('error', reject)
      })
    const before = log.lines.length
    const requestHead = (path: string, type: string) =>
      [
        `POST ${path} HTTP/1.1`,
        'Host: 127.0.0.1',
        `Content-Type: ${type}`,
        'Content-Length: 100000',
        `X-API-Key: ${key}`,
      ].join('\r\n')
    await hangUp(requestHead('/v1/agents', 'application/json'), '{"name":"Half')
    await hangUp(
      requestHead('/batch/create', 'multipart/form-data; boundary=b'),
      '--b\r\nContent-Disposition: form-data; name="file"; filename="c.csv"\r\n\r\nphone\n+1415',
    )
    await vi.waitFor(
      () => {
        const aborted = log.lines.slice(before).filter((line) => line.res?.statusCode === 499)
        expect(aborted.map((line) => [line.level, (line.req as { url: string }).url])).toEqual([
          [logLevels.warn, '/v1/agents'],
          [logLevels.warn, '/batch/create'],
        ])
      },
      { timeout: 5000, interval: 20 },
    )
    expect(log.lines.slice(before).filter((line) => line.level >= logLevels.error)).toEqual([])
  })

  it('a gzip bomb is held to the body limit after inflation (413)', async () => {
    const bomb = gzipSync(JSON.stringify({ agent_id: 'x'.repeat(2 * 1024 * 1024) }))
    expect(bomb.length).toBeLessThan(64 * 1024)
    const response = await rawPost('/v1/chat/sessions', bomb, { 'content-encoding': 'gzip' })
    expect(response.status).toBe(413)
  })

  it('malformed percent-escapes and NUL in path ids and queries are 400', async () => {
    for (const path of [
      '/v1/agents/%E0%A4%A',
      '/v1/agents/%zz',
      '/v1/agents/abc%00',
      '/v1/agents?page=%00',
      '/v1/agents/%C0%AF',
    ]) {
      const response = await server.request(path, { headers: { 'x-api-key': key } })
      expect({ path, status: response.status }).toEqual({ path, status: 400 })
    }
    const studio = await server.request('/api/agents/%ff', { token: studioToken })
    expect(studio.status).toBe(400)
    expect(await studio.json()).toEqual({ error: expect.any(String), code: 'invalid_encoding' })
  })

  it('chat-session metadata nested 5,000 levels deep is 400', async () => {
    const body = `{"agent_id":"${agentId}","metadata":${nested(5000)}}`
    const response = await rawPost('/v1/chat/sessions', body)
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ code: 'invalid_encoding' })
    // Ordinary nesting is fine.
    expect(
      (await rawPost('/v1/chat/sessions', `{"agent_id":"${agentId}","metadata":${nested(4)}}`)).status,
    ).toBe(200)
  })
})
