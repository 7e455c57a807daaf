import { request as httpRequest } from 'node:http'
import { createServer, type Server } from 'node:net'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let server: TestServer
/** A loopback peer that accepts connections and never answers: a database too busy to serve. */
let silentPeer: Server
beforeAll(async () => {
  silentPeer = createServer(() => {})
  await new Promise<void>((resolve) => silentPeer.listen(0, '127.0.0.1', resolve))
  const { port } = silentPeer.address() as { port: number }
  server = await startTestServer({
    extendApp: ({ app }) => {
      // node-postgres' own error when no connection is free in time, thrown through the real chain.
      app.get('/v1/probe/database-busy', async () => {
        const pool = new pg.Pool({ host: '127.0.0.1', port, max: 1, connectionTimeoutMillis: 50 })
        pool.on('error', () => {})
        try {
          await pool.query('select 1')
        } finally {
          void pool.end()
        }
      })
    },
  })
})
afterAll(async () => {
  await server.destroy()
  silentPeer.close()
})

describe('error body shapes by area', () => {
  it('a database with no free connection in time answers 503 with Retry-After, not 500', async () => {
    const response = await server.request('/v1/probe/database-busy')
    expect(response.status).toBe(503)
    expect(response.headers.get('retry-after')).toBe('2')
    expect(await response.json()).toEqual({
      success: false,
      error: 'The database is busy; retry shortly',
      code: 'service_unavailable',
    })
  })

  it('v1: {success: false, error, code}', async () => {
    const response = await server.request('/v1/no-such-thing')
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({
      success: false,
      error: 'No route for GET /v1/no-such-thing',
      code: 'not_found',
    })
  })

  it('v1 shape also for unknown top-level routes and the operator API', async () => {
    expect(await (await server.request('/nothing-here')).json()).toMatchObject({
      success: false,
      code: 'not_found',
    })
    const unauthorized = await server.request('/admin/organizations', { token: 'wrong-token' })
    expect(unauthorized.status).toBe(401)
    expect(await unauthorized.json()).toEqual({
      success: false,
      error: 'A valid operator token is required',
      code: 'unauthorized',
    })
  })

  it('studio: {error, code}, with every problem of a refused input', async () => {
    const response = await server.request('/api/auth/login', { method: 'POST', json: { email: 'nobody' } })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      error:
        'email: must be a valid email address; password: Invalid input: expected string, received undefined',
      code: 'validation_error',
      issues: [
        { field: 'email', message: 'must be a valid email address' },
        { field: 'password', message: 'Invalid input: expected string, received undefined' },
      ],
    })
  })

  it('chat, voice and batch: {detail, code}', async () => {
    // Unknown paths of each area (the chat API's own routes answer their codes; see chat tests).
    for (const path of ['/v1/chat/unknown', '/v1/chat/voice-unknown', '/batch/abc']) {
      const response = await server.request(path, { method: 'POST' })
      expect(response.status).toBe(404)
      const body = await response.json()
      expect(Object.keys(body).sort()).toEqual(['code', 'detail'])
      expect(body.code).toBe('not_found')
    }
  })

  it('malformed JSON is a 400 and an oversized body a 413, in the area shape', async () => {
    const malformed = await server.request('/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email":',
    })
    expect(malformed.status).toBe(400)
    expect(await malformed.json()).toEqual({
      error: 'Request body is not valid JSON',
      code: 'validation_error',
    })

    const oversized = await server.request('/admin/organizations/x/credits', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'x'.repeat(1024 * 1024 + 10) }),
    })
    expect(oversized.status).toBe(413)
    expect(await oversized.json()).toEqual({
      success: false,
      error: 'Request body is too large',
      code: 'payload_too_large',
    })
  })

  it('every response carries X-Request-Id; a well-formed incoming id is kept, a malformed one replaced', async () => {
    const generated = await server.request('/healthz')
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const kept = await server.request('/nope', { headers: { 'x-request-id': 'trace-123.abc' } })
    expect(kept.headers.get('x-request-id')).toBe('trace-123.abc')
    const replaced = await server.request('/healthz', { headers: { 'x-request-id': 'bad id <script>' } })
    expect(replaced.headers.get('x-request-id')).not.toContain('script')
  })

  it('security headers come from helmet: the API set on answers, the page set on pages', async () => {
    for (const path of ['/healthz', '/v1/agents', '/nope']) {
      const answer = await server.request(path)
      expect(answer.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'")
      expect(answer.headers.get('x-frame-options')).toBe('DENY')
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff')
      expect(answer.headers.get('strict-transport-security')).toContain('max-age=')
      expect(answer.headers.get('cross-origin-opener-policy')).toBeNull()
      expect(answer.headers.get('x-powered-by')).toBeNull()
    }
    const page = await server.request('/docs')
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'")
    expect(page.headers.get('x-frame-options')).toBe('SAMEORIGIN')
    expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin')
  })
})

describe('unexpected failures', () => {
  it('answer 500 with a generic message and no stack trace, and readiness turns 503', async () => {
    const broken = await startTestServer()
    try {
      await broken.ctx.db.destroy()
      const response = await broken.request('/api/auth/login', {
        method: 'POST',
        json: { email: 'someone@example.com', password: 'whatever-password' },
      })
      expect(response.status).toBe(500)
      const text = await response.text()
      expect(JSON.parse(text)).toEqual({ error: 'Internal server error', code: 'internal_error' })
      expect(text).not.toMatch(/at .*\.ts|Error:|stack/i)

      const ready = await broken.request('/readyz')
      expect(ready.status).toBe(503)
      expect(await ready.json()).toMatchObject({ status: 'unavailable', checks: { database: 'failed' } })
      expect((await broken.request('/healthz')).status).toBe(200)
    } finally {
      await broken.destroy()
    }
  })
})

describe('graceful shutdown', () => {
  it('finishes a request in flight, then refuses new connections', async () => {
    const stopping = await startTestServer()
    const url = new URL('/api/auth/login', stopping.url)
    const body = JSON.stringify({ email: 'late@example.com', password: 'slow-body-password' })
    const inFlight = new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        url,
        { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        },
      )
      req.on('error', reject)
      req.write(body.slice(0, 10))
      // The rest of the body arrives only after stop() has begun.
      setTimeout(() => req.end(body.slice(10)), 300)
    })
    await new Promise((resolve) => setTimeout(resolve, 100))
    const stopped = stopping.stop()
    expect(await inFlight).toBe(401)
    await stopped
    await expect(fetch(`${stopping.url}/healthz`)).rejects.toThrow()
    await stopping.destroy()
  })
})
