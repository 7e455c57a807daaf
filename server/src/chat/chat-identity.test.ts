import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { chatCall, createChatSession, sendChat } from '../../test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { auditBySystem } from '../audit/index.ts'
import { createApiKey } from '../keys/service.ts'

/**
 * Visitor identity that cannot be claimed: with the public widget key anyone can send any
 * user_identifier, so only one proven by the owner's server (user_hash, an HMAC under the
 * organization's identity secret) recalls that person's memory. An unproven one is stored as given
 * and its memory is the browser's own (visitor_id).
 */

let server: TestServer
let llm: FakeLlm
let team: Awaited<ReturnType<typeof createTeam>>
let secretKey: string
let widgetKey: string
let agentId: string
const ORIGIN = 'http://localhost:3000'

beforeAll(async () => {
  llm = await startFakeLlm()
  server = await startTestServer({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test-llm-key' } })
  team = await createTeam(server)
  secretKey = await secretKeyFor(server, team.owner)
  ;({ key: widgetKey } = await createApiKey(server.ctx, {
    organizationId: team.organizationId,
    createdBy: team.owner.userId,
    name: 'Website',
    type: 'widget',
    allowedDomains: ['shop.example.com'],
    by: auditBySystem,
  }))
  agentId = (await makeAgent(server, team.owner, { model: 'gpt-4o-mini' })).id
})
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
})
beforeEach(() => llm.reset())

const identitySecret = async (token = team.owner.session.token, organizationId = team.organizationId) =>
  server.request(`/api/organizations/${organizationId}/identity-secret`, { token })
const secretNow = async () => ((await (await identitySecret()).json()) as { secret: string }).secret
const hashOf = (secret: string, identifier: string) =>
  createHmac('sha256', secret).update(identifier).digest('hex')

const widgetSession = (body: Record<string, unknown>) =>
  server.request('/v1/chat/sessions', {
    method: 'POST',
    headers: { 'x-api-key': widgetKey, origin: ORIGIN },
    json: { agent_id: agentId, ...body },
  })

/** The system prompt of the model's last request: where recalled memory goes. */
const lastSystemPrompt = () => String(llm.requests.at(-1)?.messages[0]?.content ?? '')

/** A conversation that ends with `fact` said, so its memory identity remembers it. */
const remember = async (session: { conversation_id: string; session_token: string }, fact: string) => {
  await sendChat(server, session, fact)
  expect((await chatCall(server, session, 'end')).status).toBe(200)
}

const memoryOf = (identity: string) =>
  server.ctx.db
    .selectFrom('memory_summaries')
    .select('summary')
    .where('organization_id', '=', team.organizationId)
    .where('identity', '=', identity)
    .executeTakeFirst()

describe('visitor identity', () => {
  it("gives a visitor who claims another's identifier without proof none of their memory", async () => {
    // Alice is known to the owner's server, which opens her sessions with its secret key.
    const alice = await createChatSession(server, { key: secretKey, agentId, user_identifier: 'alice' })
    await remember(alice, 'My locker code is 4711')
    await vi.waitFor(async () => expect((await memoryOf('user:alice'))?.summary).toContain('4711'))

    // Anyone with the widget key claims "alice" from their own browser.
    const claimed = await widgetSession({ user_identifier: 'alice', visitor_id: 'mallory-browser-0001' })
    expect(claimed.status).toBe(200)
    const session = (await claimed.json()) as { conversation_id: string; session_token: string }
    await sendChat(server, session, 'What is my locker code?')
    expect(lastSystemPrompt()).not.toContain('4711')

    // The identifier is kept as given, marked unproven, for the owner to see.
    const listed = await server.request(`/v1/conversations/${session.conversation_id}`, {
      headers: { 'x-api-key': secretKey },
    })
    expect(await listed.json()).toMatchObject({ data: { userIdentifier: 'alice', userVerified: false } })

    // Its memory is the browser's own: after it ends, only that browser recalls it.
    expect((await chatCall(server, session, 'end')).status).toBe(200)
    const conversation = await server.ctx.db
      .selectFrom('conversations')
      .select('memory_identity')
      .where('id', '=', session.conversation_id)
      .executeTakeFirstOrThrow()
    expect(conversation.memory_identity).toMatch(/^visitor:/)
    expect(conversation.memory_identity).not.toContain('mallory-browser-0001')
    await vi.waitFor(async () =>
      expect((await memoryOf(conversation.memory_identity ?? ''))?.summary).toContain('locker code?'),
    )
    expect((await memoryOf('user:alice'))?.summary).not.toContain('What is my locker code?')

    const sameBrowser = (await (
      await widgetSession({ user_identifier: 'alice', visitor_id: 'mallory-browser-0001' })
    ).json()) as { conversation_id: string; session_token: string }
    await sendChat(server, sameBrowser, 'Hello again')
    expect(lastSystemPrompt()).toContain('What is my locker code?')
    expect(lastSystemPrompt()).not.toContain('4711')

    const otherBrowser = (await (
      await widgetSession({ user_identifier: 'alice', visitor_id: 'another-browser-0002' })
    ).json()) as { conversation_id: string; session_token: string }
    await sendChat(server, otherBrowser, 'Hello')
    expect(lastSystemPrompt()).not.toContain('locker')

    // No visitor id, no proof: no memory at all.
    const bare = (await (await widgetSession({ user_identifier: 'alice' })).json()) as {
      conversation_id: string
      session_token: string
    }
    await sendChat(server, bare, 'Hi')
    expect(lastSystemPrompt()).not.toContain('locker')
  })

  it('recalls the memory of an identifier proven by a valid user_hash, and refuses a wrong one', async () => {
    const bob = await createChatSession(server, {
      key: secretKey,
      agentId,
      user_identifier: 'bob@shop.example',
    })
    await remember(bob, 'I prefer deliveries on Fridays')
    await vi.waitFor(async () =>
      expect((await memoryOf('user:bob@shop.example'))?.summary).toContain('Fridays'),
    )

    const secret = await secretNow()
    expect(secret).toHaveLength(43)
    const proven = await widgetSession({
      user_identifier: 'bob@shop.example',
      user_hash: hashOf(secret, 'bob@shop.example'),
      visitor_id: 'bobs-browser-000001',
    })
    expect(proven.status).toBe(200)
    await sendChat(server, (await proven.json()) as { conversation_id: string; session_token: string }, 'Hi')
    expect(lastSystemPrompt()).toContain('Fridays')
    // Upper-case hex proves it too.
    const upper = await widgetSession({
      user_identifier: 'bob@shop.example',
      user_hash: hashOf(secret, 'bob@shop.example').toUpperCase(),
    })
    expect(upper.status).toBe(200)

    const conversations = async () =>
      Number(
        (
          await server.ctx.db
            .selectFrom('conversations')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('organization_id', '=', team.organizationId)
            .executeTakeFirstOrThrow()
        ).n,
      )
    const before = await conversations()
    const asked = llm.requests.length
    for (const wrong of [
      hashOf(secret, 'alice'),
      hashOf('not-the-secret', 'bob@shop.example'),
      '0'.repeat(64),
    ]) {
      const refused = await widgetSession({ user_identifier: 'bob@shop.example', user_hash: wrong })
      expect(refused.status).toBe(403)
      expect(await refused.json()).toMatchObject({
        code: 'invalid_user_hash',
        detail: expect.stringContaining('user_hash'),
      })
    }
    const malformed = await widgetSession({ user_identifier: 'bob@shop.example', user_hash: 'abc' })
    expect(malformed.status).toBe(400)
    const withoutIdentifier = await widgetSession({ user_hash: hashOf(secret, 'bob@shop.example') })
    expect(withoutIdentifier.status).toBe(400)
    expect(await conversations()).toBe(before)
    expect(llm.requests).toHaveLength(asked)
  })

  it('rotates the identity secret: the old one stops working at once', async () => {
    const old = await secretNow()
    expect(await secretNow()).toBe(old) // made once, kept
    const rotated = await server.request(`/api/organizations/${team.organizationId}/identity-secret/rotate`, {
      method: 'POST',
      token: team.owner.session.token,
    })
    expect(rotated.status).toBe(200)
    const { secret } = (await rotated.json()) as { secret: string }
    expect(secret).not.toBe(old)
    expect(await secretNow()).toBe(secret)
    const stale = await widgetSession({ user_identifier: 'carol', user_hash: hashOf(old, 'carol') })
    expect(stale.status).toBe(403)
    const fresh = await widgetSession({ user_identifier: 'carol', user_hash: hashOf(secret, 'carol') })
    expect(fresh.status).toBe(200)
    // Sealed at rest: the stored column never holds the secret itself.
    const row = await server.ctx.db
      .selectFrom('organizations')
      .select('identity_secret')
      .where('id', '=', team.organizationId)
      .executeTakeFirstOrThrow()
    expect(row.identity_secret).toMatch(/^v1:/)
    expect(row.identity_secret).not.toContain(secret)
  })

  it('shows the secret to owners and admins only, and another organization nothing', async () => {
    expect((await identitySecret(team.admin.session.token)).status).toBe(200)
    const member = await identitySecret(team.member.session.token)
    expect(member.status).toBe(403)
    const rotateByMember = await server.request(
      `/api/organizations/${team.organizationId}/identity-secret/rotate`,
      {
        method: 'POST',
        token: team.member.session.token,
      },
    )
    expect(rotateByMember.status).toBe(403)
    const other = await createTeam(server)
    expect((await identitySecret(other.owner.session.token)).status).toBe(404)
    expect((await identitySecret(team.owner.session.token, other.organizationId)).status).toBe(404)
    // Each organization has its own: a hash made with one proves nothing in the other.
    const otherSecret = (
      (await (await identitySecret(other.owner.session.token, other.organizationId)).json()) as {
        secret: string
      }
    ).secret
    expect(otherSecret).not.toBe(await secretNow())
    const crossed = await widgetSession({ user_identifier: 'dave', user_hash: hashOf(otherSecret, 'dave') })
    expect(crossed.status).toBe(403)
  })
})
