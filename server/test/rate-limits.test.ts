import type { Session } from '@parley/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey, signUp } from './helpers/accounts.ts'
import { createChatSession, createTextAgent } from './helpers/chat.ts'
import { canRunTwoInstances, startTestServer, type TestServer } from './helpers/test-server.ts'

let a: TestServer
let b: TestServer
beforeAll(async () => {
  a = await startTestServer()
  b = canRunTwoInstances ? await startTestServer({ shareDatabaseWith: a }) : a
})
afterAll(async () => {
  if (b !== a) await b.destroy()
  await a.destroy()
})

const instances = canRunTwoInstances
  ? 'two instances sharing PostgreSQL and Redis'
  : 'one instance (the two-instance run needs TEST_DATABASE_URL and TEST_REDIS_URL)'

/** A fresh organization with a secret key; limits are set before the key's first use is cached. */
const organizationWithKey = async (limits?: { tier?: string; rateLimitPerMinute?: number }) => {
  const owner: Session = await signUp(a)
  if (limits) {
    const response = await a.request(`/admin/organizations/${owner.organization.id}`, {
      method: 'PATCH',
      token: a.config.adminToken,
      json: limits,
    })
    expect(response.status).toBe(200)
  }
  return { owner, key: (await createKey(a, owner.token)).key }
}

const v1 = (server: TestServer, key: string) =>
  server.request('/v1/organization', { headers: { 'x-api-key': key } })

const expectRateHeaders = (
  response: Response,
  { limit, remaining }: { limit: number; remaining: number },
) => {
  expect(response.headers.get('x-ratelimit-limit')).toBe(String(limit))
  expect(response.headers.get('x-ratelimit-remaining')).toBe(String(remaining))
  const reset = Number(response.headers.get('x-ratelimit-reset'))
  expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000))
  expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 61)
  expect(response.headers.get('ratelimit-policy')).toMatch(new RegExp(`^"[\\w-]+";q=${limit};w=60$`))
  expect(response.headers.get('ratelimit')).toMatch(new RegExp(`^"[\\w-]+";r=${remaining};t=\\d+$`))
}

const expectLimited = async (response: Response, body: object) => {
  expect(response.status).toBe(429)
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
  expect(response.headers.get('x-ratelimit-remaining')).toBe('0')
  expect(await response.json()).toEqual(body)
}

describe('v1 rate limits per organization', () => {
  it('free tier: 60 per minute, with X-RateLimit-* and IETF RateLimit headers on every answer', async () => {
    const { key } = await organizationWithKey()
    expectRateHeaders(await v1(a, key), { limit: 60, remaining: 59 })
    expectRateHeaders(await v1(a, key), { limit: 60, remaining: 58 })
  })

  it('pro tier: 300 per minute; enterprise: the custom limit', async () => {
    const pro = await organizationWithKey({ tier: 'pro' })
    expectRateHeaders(await v1(a, pro.key), { limit: 300, remaining: 299 })
    const enterprise = await organizationWithKey({ tier: 'enterprise', rateLimitPerMinute: 2500 })
    expectRateHeaders(await v1(a, enterprise.key), { limit: 2500, remaining: 2499 })
  })

  it('applies a changed limit at once, though the key is cached', async () => {
    const { owner, key } = await organizationWithKey()
    expectRateHeaders(await v1(a, key), { limit: 60, remaining: 59 })
    await a.request(`/admin/organizations/${owner.organization.id}`, {
      method: 'PATCH',
      token: a.config.adminToken,
      json: { tier: 'pro' },
    })
    expect((await v1(a, key)).headers.get('x-ratelimit-limit')).toBe('300')
  })

  it('429 with Retry-After and the v1 body once spent; other organizations are unaffected', async () => {
    const { key } = await organizationWithKey({ rateLimitPerMinute: 3 })
    for (let i = 0; i < 3; i++) expect((await v1(a, key)).status).toBe(200)
    await expectLimited(await v1(a, key), {
      success: false,
      error: expect.stringMatching(/^Too many requests/),
      code: 'rate_limited',
    })
    expect((await v1(a, (await organizationWithKey()).key)).status).toBe(200)
  })

  it(`shares one budget across ${instances}`, async () => {
    const { key } = await organizationWithKey({ rateLimitPerMinute: 4 })
    for (const server of [a, b, a, b]) expect((await v1(server, key)).status).toBe(200)
    await expectLimited(await v1(b, key), {
      success: false,
      error: expect.any(String),
      code: 'rate_limited',
    })
    expect((await v1(a, key)).status).toBe(429)
  })
})

describe('chat rate limits on the chat routes', () => {
  const chatLimited = { detail: expect.stringMatching(/^Too many requests/), code: 'rate_limited' }

  it('session creation: 100 per minute per key; another key keeps its own budget', async () => {
    const { owner, key: secret } = await organizationWithKey()
    const agentId = await createTextAgent(a, secret)
    const widget = await createKey(a, owner.token, { type: 'widget', allowedDomains: ['example.com'] })
    const other = await createKey(a, owner.token)
    const create = (key: string) =>
      a.request('/v1/chat/sessions', {
        method: 'POST',
        headers: { 'x-api-key': key, origin: 'https://shop.example.com' },
        json: { agent_id: agentId },
      })
    const first = await create(widget.key)
    expectRateHeaders(first, { limit: 100, remaining: 99 })
    // One after another: the embedded PGlite mixes up concurrent connections' statements (see report).
    const rest: Response[] = []
    for (let n = 0; n < 99; n++) rest.push(await create(widget.key))
    expect(rest.every((response) => response.status === 200)).toBe(true)
    await expectLimited(await create(widget.key), chatLimited)
    expect((await create(other.key)).status).toBe(200)
  })

  it.each([
    ['POST', 'messages', 60],
    ['GET', 'messages', 100],
    ['POST', 'end', 60],
  ])('%s /sessions/{id}/%s: %i per minute per session', async (method, action, limit) => {
    const { key } = await organizationWithKey()
    const agentId = await createTextAgent(a, key)
    const [session, other] = [
      await createChatSession(a, { key, agentId }),
      await createChatSession(a, { key, agentId }),
    ]
    // An empty message is refused (400) after the limiter counted it, so no reply is generated.
    const call = ({ conversation_id, session_token }: typeof session) =>
      a.request(`/v1/chat/sessions/${conversation_id}/${action}`, {
        method,
        token: session_token,
        ...(method === 'POST' && action === 'messages' ? { json: { message: '' } } : {}),
      })
    expectRateHeaders(await call(session), { limit, remaining: limit - 1 })
    const rest: Response[] = []
    for (let n = 0; n < limit - 1; n++) rest.push(await call(session))
    expect(rest.some((response) => response.status === 429)).toBe(false)
    await expectLimited(await call(session), chatLimited)
    expect((await call(other)).status).not.toBe(429)
  })
})
