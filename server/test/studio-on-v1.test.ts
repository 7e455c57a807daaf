import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createChatSession, sendChat } from './helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from './helpers/fake-llm.ts'
import { createTeam, secretKeyFor } from './helpers/organization.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/**
 * The studio web app talks to the public API with its session token: on /v1 a studio session acts
 * as the member it names, with that member's role as it is now, within its organization only.
 */
let server: TestServer
let llm: FakeLlm
let team: Awaited<ReturnType<typeof createTeam>>

beforeAll(async () => {
  llm = await startFakeLlm()
  server = await startTestServer({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test-llm-key' } })
  team = await createTeam(server)
})
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
})

const as = (token: string, path: string, init: { method?: string; json?: unknown } = {}) =>
  server.request(path, { ...init, token })

describe('a studio session on /v1', () => {
  it('creates, lists, updates and deletes agents as its member', async () => {
    const token = team.owner.session.token
    const created = await as(token, '/v1/agents', {
      method: 'POST',
      json: { name: 'Studio agent', agentArchitecture: 'text', systemPrompt: 'You help.' },
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()).data
    const listed = await (await as(token, '/v1/agents?limit=100')).json()
    expect(listed.data.map((agent: { id: string }) => agent.id)).toContain(id)
    expect((await as(token, `/v1/agents/${id}`, { method: 'PATCH', json: { active: true } })).status).toBe(
      200,
    )
    const stored = await server.ctx.db
      .selectFrom('agents')
      .select('user_id')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    expect(stored.user_id).toBe(team.owner.userId)
    expect((await as(token, `/v1/agents/${id}`, { method: 'DELETE' })).status).toBe(200)
  })

  it('has its member’s role: a member may not make commercial agents or phone numbers', async () => {
    const token = team.member.session.token
    const commercial = await as(token, '/v1/agents', {
      method: 'POST',
      json: { name: 'Mine', agentArchitecture: 'text', systemPrompt: 'You help.', mode: 'commercial' },
    })
    expect(commercial.status).toBe(403)
    const own = await as(token, '/v1/agents', {
      method: 'POST',
      json: { name: 'Mine', agentArchitecture: 'text', systemPrompt: 'You help.' },
    })
    expect(own.status).toBe(201)
    const phone = await as(token, '/v1/phone-numbers', {
      method: 'POST',
      json: { number: '+14155550142', sipTrunkId: 'ST_x' },
    })
    expect(phone.status).toBe(403)
  })

  it('reads its organization’s conversations and deletes one, logged with its member; never another organization’s', async () => {
    const key = await secretKeyFor(server, team.owner)
    const agent = await as(team.owner.session.token, '/v1/agents', {
      method: 'POST',
      json: { name: 'Talker', agentArchitecture: 'text', systemPrompt: 'You help.' },
    })
    const agentId = (await agent.json()).data.id
    const session = await createChatSession(server, { key, agentId })
    llm.queue({ text: ['Sure.'] })
    await sendChat(server, session, 'Hello')

    const token = team.admin.session.token
    const list = await (await as(token, '/v1/conversations')).json()
    expect(list.data.map((row: { id: string }) => row.id)).toContain(session.conversation_id)
    const stranger = await createTeam(server)
    const theirs = await as(stranger.owner.session.token, `/v1/conversations/${session.conversation_id}`)
    expect(theirs.status).toBe(404)

    const deleted = await as(token, `/v1/conversations/${session.conversation_id}`, { method: 'DELETE' })
    expect(deleted.status).toBe(200)
    const log = await (await as(token, '/v1/deletions')).json()
    expect(log.data[0]).toMatchObject({
      kind: 'conversation',
      targetId: session.conversation_id,
      deletedByKeyId: null,
      deletedByUserId: team.admin.userId,
    })
  })

  it('loses access with its membership, at once', async () => {
    const gone = await createTeam(server)
    const token = gone.member.session.token
    expect((await as(token, '/v1/organization')).status).toBe(200)
    await server.ctx.db
      .deleteFrom('memberships')
      .where('user_id', '=', gone.member.userId)
      .where('organization_id', '=', gone.organizationId)
      .execute()
    expect((await as(token, '/v1/organization')).status).toBe(401)
  })
})
