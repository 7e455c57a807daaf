import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

const production = {
  NODE_ENV: 'production',
  LLM_BASE_URL: 'http://127.0.0.1:9/v1',
  LLM_API_KEY: 'test-llm-key',
  ALLOW_EMBEDDED_DATABASE: '1',
}

describe('HTTPS guard', () => {
  let development: TestServer
  let behindProxy: TestServer
  let productionDirect: TestServer
  let productionBehindProxy: TestServer
  beforeAll(async () => {
    // One after another: four embedded databases booting at once in one event loop starve each
    // other's connections past the pool's connect time-out on a busy machine.
    development = await startTestServer()
    behindProxy = await startTestServer({ env: { TRUST_PROXY: 'loopback' } })
    productionDirect = await startTestServer({ env: production })
    productionBehindProxy = await startTestServer({ env: { ...production, TRUST_PROXY: 'loopback' } })
  }, 120_000)
  afterAll(async () => {
    await Promise.all(
      [development, behindProxy, productionDirect, productionBehindProxy].map((s) => s?.destroy()),
    )
  })

  it('lets loopback use plain HTTP outside production, whatever untrusted headers claim', async () => {
    const response = await development.request('/v1/organization', {
      headers: { 'x-forwarded-proto': 'http', 'x-forwarded-for': '203.0.113.9' },
    })
    expect(response.status).toBe(401)
  })

  it('refuses plain HTTP in production with 403 in each area’s body shape', async () => {
    const cases: [string, unknown][] = [
      ['/v1/organization', { success: false, error: expect.stringMatching(/HTTPS/), code: 'https_required' }],
      [
        '/api/auth/session',
        { error: 'HTTPS is required; plain HTTP requests are refused', code: 'https_required' },
      ],
      ['/v1/chat/sessions', { detail: expect.stringMatching(/HTTPS/), code: 'https_required' }],
    ]
    for (const [path, body] of cases) {
      const response = await productionDirect.request(path)
      expect(response.status).toBe(403)
      expect(await response.json()).toEqual(body)
    }
  })

  it('ignores X-Forwarded-Proto unless TRUST_PROXY names the proxy', async () => {
    const headers = { 'x-forwarded-proto': 'https' }
    expect((await productionDirect.request('/v1/organization', { headers })).status).toBe(403)
    expect((await productionBehindProxy.request('/v1/organization', { headers })).status).toBe(401)
  })

  it('behind a trusted proxy, a remote client on http is refused even outside production', async () => {
    const remote = { 'x-forwarded-for': '203.0.113.9' }
    const refused = await behindProxy.request('/v1/organization', {
      headers: { ...remote, 'x-forwarded-proto': 'http' },
    })
    expect(refused.status).toBe(403)
    const allowed = await behindProxy.request('/v1/organization', {
      headers: { ...remote, 'x-forwarded-proto': 'https' },
    })
    expect(allowed.status).toBe(401)
  })

  it('answers load-balancer probes on plain HTTP', async () => {
    expect((await productionDirect.request('/healthz')).status).toBe(200)
  })
})

/** A server on the defaults, for the chat API's CORS and the JSON answers. */
let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.destroy()
})

describe('CORS of the chat API', () => {
  it('answers a preflight from any origin without authentication, listing the spec’s methods and headers', async () => {
    const response = await server.request('/v1/chat/sessions', {
      method: 'OPTIONS',
      headers: {
        origin: 'https://any-site.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-api-key',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-allow-methods')).toBe('GET,POST,OPTIONS')
    expect(response.headers.get('access-control-allow-headers')).toBe(
      'Content-Type,Authorization,X-API-Key,X-Studio-Token,Origin,Idempotency-Key,Last-Event-ID',
    )
  })

  it('lets browsers read chat answers, errors included; other areas send no CORS headers', async () => {
    const refused = await server.request('/v1/chat/sessions', {
      method: 'POST',
      headers: { origin: 'https://any-site.example' },
    })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('access-control-allow-origin')).toBe('*')
    // The widget's 429 countdown reads Retry-After, which browsers hide unless it is exposed.
    expect(refused.headers.get('access-control-expose-headers')).toBe(
      'Retry-After,X-RateLimit-Limit,X-RateLimit-Remaining,X-RateLimit-Reset',
    )
    const v1 = await server.request('/v1/organization', { headers: { origin: 'https://any-site.example' } })
    expect(v1.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('JSON answers', () => {
  it('carry no ETag (no body is hashed), and HEAD says the length GET sends', async () => {
    const get = await server.request('/healthz')
    const body = await get.text()
    expect(JSON.parse(body)).toEqual({ status: 'ok' })
    expect(get.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(get.headers.get('etag')).toBeNull()
    expect(get.headers.get('content-length')).toBe(String(Buffer.byteLength(body)))
    const head = await server.request('/healthz', { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(body)))
  })
})
