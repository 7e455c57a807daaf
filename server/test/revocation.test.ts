import type { Session } from '@parley/shared'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { KEY_REVOKED_MESSAGE } from '../src/http/streams.ts'
import { createKey, signUp } from './helpers/accounts.ts'
import { createChatSession, createTextAgent } from './helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from './helpers/fake-llm.ts'
import { readEvents } from './helpers/sse.ts'
import { canRunTwoInstances, startTestServer, type TestServer } from './helpers/test-server.ts'

/** `a` takes the studio actions; `b` holds the streams and caches (the same server without Redis). */
let a: TestServer
let b: TestServer
let owner: Session
let llm: FakeLlm
let agentId: string
beforeAll(async () => {
  llm = await startFakeLlm()
  // Every reply stays open until its stream is closed, as a slow model's would.
  llm.setFallback({ hang: true })
  const env = { LLM_BASE_URL: llm.baseUrl }
  a = await startTestServer({ env })
  b = canRunTwoInstances ? await startTestServer({ shareDatabaseWith: a, env }) : a
  owner = await signUp(a)
  agentId = await createTextAgent(a, (await createKey(a, owner.token)).key)
})
afterAll(async () => {
  if (b !== a) await b.destroy()
  await a.destroy()
  await llm.close()
})

const where = canRunTwoInstances
  ? 'on another instance (shared PostgreSQL and Redis)'
  : 'on the same instance (the cross-instance run needs TEST_DATABASE_URL and TEST_REDIS_URL)'

/** A real chat reply streaming on `b`, from a session opened with the key. */
const openStream = async (key: string, origin = 'http://localhost:3000') => {
  const session = await createChatSession(b, { key, agentId, origin })
  const response = await b.request(`/v1/chat/sessions/${session.conversation_id}/messages`, {
    method: 'POST',
    token: session.session_token,
    json: { message: 'Tell me a long story' },
  })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
  const events = readEvents(response)
  expect(await events.next()).toEqual({ event: 'stream_start', data: { agent_name: 'Chat Agent' } })
  return events
}

const act = (id: string, action: 'revoke' | 'disable' | 'enable') =>
  a.request(`/api/api-keys/${id}/${action}`, { method: 'POST', token: owner.token })

describe(`revoking a key ${where}`, () => {
  it('sends an error event to every open stream of that key and closes it; other keys stay open', async () => {
    const widget = await createKey(a, owner.token, { type: 'widget', allowedDomains: ['example.com'] })
    const bystander = await createKey(a, owner.token)
    const first = await openStream(widget.key)
    const second = await openStream(widget.key, 'https://shop.example.com')
    const untouched = await openStream(bystander.key)
    expect(b.ctx.streams.countOpen(widget.id)).toBe(2)

    expect((await act(widget.id, 'revoke')).status).toBe(200)

    for (const events of [first, second]) {
      expect(await events.next()).toEqual({ event: 'error', data: { error: KEY_REVOKED_MESSAGE } })
      expect(await events.next()).toBeNull()
    }
    expect(b.ctx.streams.countOpen(widget.id)).toBe(0)
    expect(b.ctx.streams.countOpen(bystander.id)).toBe(1)
    await untouched.cancel()
    await vi.waitFor(() => expect(b.ctx.streams.countOpen(bystander.id)).toBe(0))
  })

  it('invalidates the cached key there at once: the next request answers 401', async () => {
    const { id, key } = await createKey(a, owner.token)
    const headers = { 'x-api-key': key }
    expect((await b.request('/v1/organization', { headers })).status).toBe(200)
    const stream = await openStream(key)
    await act(id, 'revoke')
    // The error event proves the signal reached `b`; the cache entry went with the signal before it.
    expect((await stream.next())?.event).toBe('error')
    const response = await b.request('/v1/organization', { headers })
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({
      success: false,
      error: 'This API key was revoked',
      code: 'invalid_api_key',
    })
  })

  it('refuses a revoked key when opening a stream, with the chat body shape', async () => {
    const { id, key } = await createKey(a, owner.token)
    await act(id, 'revoke')
    const response = await b.request('/v1/chat/sessions', {
      method: 'POST',
      headers: { 'x-api-key': key },
      json: { agent_id: agentId },
    })
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({ detail: 'This API key was revoked', code: 'invalid_api_key' })
  })
})

describe(`disabling a key ${where}`, () => {
  it('drops the cached key there, and enabling restores it', async () => {
    const { id, key } = await createKey(a, owner.token)
    const status = async () => (await b.request('/v1/organization', { headers: { 'x-api-key': key } })).status
    expect(await status()).toBe(200)
    await act(id, 'disable')
    // Pub/sub delivery to another process is asynchronous: poll briefly rather than race it.
    await vi.waitFor(async () => expect(await status()).toBe(401), { timeout: 5000, interval: 20 })
    await act(id, 'enable')
    await vi.waitFor(async () => expect(await status()).toBe(200), { timeout: 5000, interval: 20 })
  })
})

describe('widget origins on a key that accepts widgets', () => {
  it('refuses a missing or unlisted Origin with 403 origin_not_allowed', async () => {
    const widget = await createKey(a, owner.token, { type: 'widget', allowedDomains: ['example.com'] })
    for (const headers of [
      { 'x-api-key': widget.key },
      { 'x-api-key': widget.key, origin: 'https://evil-example.com' },
      { 'x-api-key': widget.key, origin: 'https://example.com.evil.io' },
    ] as Record<string, string>[]) {
      const response = await b.request('/v1/chat/sessions', {
        method: 'POST',
        headers,
        json: { agent_id: agentId },
      })
      expect(response.status).toBe(403)
      expect(await response.json()).toMatchObject({ code: 'origin_not_allowed' })
    }
  })
})
