import jwt from 'jsonwebtoken'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey } from '../../test/helpers/accounts.ts'
import { setBalanceMicros } from '../../test/helpers/billing.ts'
import { chatCall, createChatSession, readChatStream, sendChat } from '../../test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

let server: TestServer
let llm: FakeLlm
let team: Awaited<ReturnType<typeof createTeam>>
let key: string
let agentId: string

beforeAll(async () => {
  llm = await startFakeLlm()
  server = await startTestServer({ env: { LLM_BASE_URL: llm.baseUrl } })
  team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
  agentId = (await makeAgent(server, team.owner)).id
})
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
})

const createWith = (headers: Record<string, string>, json: unknown = { agent_id: agentId }) =>
  server.request('/v1/chat/sessions', { method: 'POST', headers, json })

const expectError = async (response: Response, status: number, code: string, detail?: string) => {
  expect(response.status).toBe(status)
  const body = (await response.json()) as { detail: string; code: string }
  expect(body.code).toBe(code)
  if (detail) expect(body.detail).toBe(detail)
}

const emptyBalance = (organizationId: string) => setBalanceMicros(server, { organizationId, micros: 0 })

describe('chat API error codes (spec "Chat API codes")', () => {
  it('400 not_text_agent: pipeline and realtime agents cannot chat', async () => {
    const voice = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
    await expectError(await createWith({ 'x-api-key': key }, { agent_id: voice.id }), 400, 'not_text_agent')
  })

  it('400 message_too_long: over 10,000 characters, and nothing is stored', async () => {
    const session = await createChatSession(server, { key, agentId })
    const response = await chatCall(server, session, 'messages', { json: { message: 'x'.repeat(10_001) } })
    await expectError(response, 400, 'message_too_long')
    const history = (await (await chatCall(server, session, 'history')).json()) as { count: number }
    expect(history.count).toBe(0)
    expect(llm.requests).toHaveLength(0)
  })

  it('401 invalid_api_key: missing, unknown or revoked key', async () => {
    await expectError(await createWith({}), 401, 'invalid_api_key')
    await expectError(await createWith({ 'x-api-key': 'sk_live_not-a-key' }), 401, 'invalid_api_key')
  })

  it('401 invalid_token: a forged, expired or studio token, with the end-session detail', async () => {
    const session = await createChatSession(server, { key, agentId })
    const claims = { org: team.organizationId, agt: agentId, kid: null }
    const expired = jwt.sign(claims, server.config.jwtSecret, {
      algorithm: 'HS256',
      subject: session.conversation_id,
      issuer: 'parley',
      audience: 'parley-chat',
      expiresIn: -10,
    })
    const forged = jwt.sign(claims, 'another-secret-of-at-least-32-characters!', {
      algorithm: 'HS256',
      subject: session.conversation_id,
      issuer: 'parley',
      audience: 'parley-chat',
    })
    for (const token of [expired, forged, team.owner.session.token, 'not-a-jwt']) {
      const response = await chatCall(server, { ...session, session_token: token }, 'end')
      await expectError(response, 401, 'invalid_token', 'Invalid or expired session token')
    }
    const missing = await server.request(`/v1/chat/sessions/${session.conversation_id}/messages`)
    await expectError(missing, 401, 'invalid_token')
  })

  it('401 invalid_token: the session tokens of a revoked key stop working at once', async () => {
    const created = await createKey(server, team.owner.session.token)
    const session = await createChatSession(server, { key: created.key, agentId })
    expect((await chatCall(server, session, 'history')).status).toBe(200)
    await server.request(`/api/api-keys/${created.id}/revoke`, {
      method: 'POST',
      token: team.owner.session.token,
    })
    await expectError(await chatCall(server, session, 'history'), 401, 'invalid_token')
  })

  it('402 insufficient_credits: at session creation and for the next reply when credits run out', async () => {
    const poor = await createTeam(server)
    const poorKey = await secretKeyFor(server, poor.owner)
    const poorAgent = await makeAgent(server, poor.owner)
    const session = await createChatSession(server, { key: poorKey, agentId: poorAgent.id })
    await emptyBalance(poor.organizationId)
    await expectError(
      await createWith({ 'x-api-key': poorKey }, { agent_id: poorAgent.id }),
      402,
      'insufficient_credits',
    )
    const reply = await chatCall(server, session, 'messages', { json: { message: 'Hello?' } })
    await expectError(reply, 402, 'insufficient_credits')
  })

  it('403 conversation_mismatch: a token used on another conversation, with the end-session detail', async () => {
    const mine = await createChatSession(server, { key, agentId })
    const other = await createChatSession(server, { key, agentId })
    const response = await chatCall(server, { ...other, session_token: mine.session_token }, 'end')
    await expectError(response, 403, 'conversation_mismatch', 'Conversation ID does not match session token')
  })

  it('404 session_not_found: after the session ended, for every call; ending twice', async () => {
    const session = await createChatSession(server, { key, agentId })
    expect((await chatCall(server, session, 'end')).status).toBe(200)
    await expectError(await chatCall(server, session, 'end'), 404, 'session_not_found')
    await expectError(await chatCall(server, session, 'history'), 404, 'session_not_found')
    await expectError(
      await chatCall(server, session, 'messages', { json: { message: 'Hi' } }),
      404,
      'session_not_found',
    )
  })

  it('404 for an agent outside the key’s organization', async () => {
    const stranger = await createTeam(server)
    const foreign = await makeAgent(server, stranger.owner)
    await expectError(await createWith({ 'x-api-key': key }, { agent_id: foreign.id }), 404, 'not_found')
  })

  it('409 while a reply is streaming: one reply at a time per session', async () => {
    const session = await createChatSession(server, { key, agentId })
    llm.queue({ text: ['Slow'], hang: true })
    const first = await chatCall(server, session, 'messages', { json: { message: 'One' } })
    const second = await chatCall(server, session, 'messages', { json: { message: 'Two' } })
    await expectError(second, 409, 'conflict')
    await chatCall(server, session, 'messages/stop')
    await readChatStream(first)
    llm.queue({ text: ['Now'] })
    expect((await sendChat(server, session, 'Three')).events.at(-1)?.event).toBe('stream_end')
  })

  it('accepts a widget key from an allowed origin and a studio token', async () => {
    const widget = await createKey(server, team.owner.session.token, {
      type: 'widget',
      allowedDomains: ['shop.example'],
    })
    const fromShop = await createWith({ 'x-api-key': widget.key, origin: 'https://shop.example' })
    expect(fromShop.status).toBe(200)
    const elsewhere = await createWith({ 'x-api-key': widget.key, origin: 'https://evil.example' })
    await expectError(elsewhere, 403, 'origin_not_allowed')
    const studio = await createWith({ 'x-studio-token': team.owner.session.token })
    expect(studio.status).toBe(200)
  })

  it('accepts a secret key as Authorization: Bearer, as the README and the 401 say', async () => {
    expect((await createWith({ authorization: `Bearer ${key}` })).status).toBe(200)
    await expectError(await createWith({ authorization: 'Bearer not-a-key' }), 401, 'invalid_api_key')
  })

  it('503 when the billing store cannot answer at session creation; nothing is created', async () => {
    // A real failing query, not a mock: the balance column is renamed away for this one request.
    const conversations = async () =>
      Number(
        (
          await server.ctx.db
            .selectFrom('conversations')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    const before = await conversations()
    await sql`alter table organizations rename column credit_balance_micros to balance_away`.execute(
      server.ctx.db,
    )
    try {
      await expectError(
        await createWith({ 'x-api-key': key }),
        503,
        'service_unavailable',
        'Billing service unavailable',
      )
    } finally {
      await sql`alter table organizations rename column balance_away to credit_balance_micros`.execute(
        server.ctx.db,
      )
    }
    expect(await conversations()).toBe(before)
    expect((await createWith({ 'x-api-key': key })).status).toBe(200)
  })

  it('500 "Failed to end session" when the end cannot be recorded; the session stays usable', async () => {
    const session = await createChatSession(server, { key, agentId })
    // A real database refusal: a trigger rejects closing conversations while it exists.
    await sql`create function refuse_close() returns trigger language plpgsql as $$
      begin raise exception 'closing refused by the test'; end $$`.execute(server.ctx.db)
    await sql`create trigger refuse_close before update of status on conversations
      for each row execute function refuse_close()`.execute(server.ctx.db)
    try {
      await expectError(
        await chatCall(server, session, 'end'),
        500,
        'internal_error',
        'Failed to end session',
      )
    } finally {
      await sql`drop trigger refuse_close on conversations`.execute(server.ctx.db)
      await sql`drop function refuse_close()`.execute(server.ctx.db)
    }
    expect((await chatCall(server, session, 'end')).status).toBe(200)
  })
})
