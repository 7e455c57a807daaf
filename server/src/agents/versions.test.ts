import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createChatSession, sendChat } from '../../test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { auditBySystem } from '../audit/index.ts'
import { up as migrateVersions } from '../db/migrations/0055-agent-versions.ts'
import { createApiKey } from '../keys/service.ts'

let server: TestServer
let llm: FakeLlm
let team: Awaited<ReturnType<typeof createTeam>>
let other: Awaited<ReturnType<typeof createTeam>>
let key: string
let otherKey: string
let widgetKey: string

beforeAll(async () => {
  llm = await startFakeLlm()
  server = await startTestServer({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test-llm-key' } })
  team = await createTeam(server)
  other = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
  otherKey = await secretKeyFor(server, other.owner)
  ;({ key: widgetKey } = await createApiKey(server.ctx, {
    organizationId: team.organizationId,
    createdBy: team.owner.userId,
    name: 'Website',
    type: 'widget',
    allowedDomains: ['shop.example.com'],
    by: auditBySystem,
  }))
}, 240_000)
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
})
beforeEach(() => llm.reset())

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely; their shapes are the assertions
type Json = Record<string, any>
const call = async (path: string, init: { method?: string; json?: unknown; token?: string } = {}) => {
  const response = await server.request(path, {
    method: init.method ?? 'GET',
    token: init.token ?? key,
    ...(init.json !== undefined ? { json: init.json } : {}),
  })
  return { status: response.status, body: (await response.json()) as Json }
}
const studioEdit = (agentId: string, json: Record<string, unknown>) =>
  call(`/api/agents/${agentId}`, { method: 'PUT', json, token: team.owner.session.token })
const publish = (agentId: string, note?: string) =>
  call(`/v1/agents/${agentId}/publish`, { method: 'POST', json: note === undefined ? {} : { note } })
const promptSent = () => JSON.stringify(llm.requests.at(-1)?.messages)

describe('agent versions', () => {
  it('gives a new agent version 1 and snapshots every setting and function definition on publish', async () => {
    const agent = await makeAgent(server, team.owner, { systemPrompt: 'Prompt one.' })
    const listed = await call(`/v1/agents/${agent.id}/versions`)
    expect(listed.status).toBe(200)
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        number: 1,
        published: true,
        publishedBy: team.owner.userId,
        note: 'Created',
      }),
    ])
    // Stored as the functions area stores it (its URL is never called here).
    await server.ctx.db
      .insertInto('custom_functions')
      .values({
        id: `fn-${agent.id}`,
        organization_id: team.organizationId,
        agent_id: agent.id,
        name: 'lookup_order',
        label: 'Look up an order',
        description: 'Finds an order',
        endpoint: 'https://orders.example.com/lookup',
        method: 'POST',
        headers_box: 'sealed',
        parameters: JSON.stringify({
          type: 'object',
          properties: { id: { type: 'string' } },
          required: ['id'],
        }),
      })
      .execute()
    const edit = await studioEdit(agent.id, { sysMsg: 'Prompt two.', temperature: 0.3, lastMessage: 'Bye' })
    expect(edit.status).toBe(200)
    expect(edit.body.agent.sysMsg).toBe('Prompt two.')
    // Saving touched only the draft: the published agent is unchanged.
    expect((await call(`/v1/agents/${agent.id}`)).body.data.systemPrompt).toBe('Prompt one.')
    const draft = await call(`/v1/agents/${agent.id}/draft`)
    expect(draft.body.data.basedOn).toBe(1)
    expect(draft.body.data.changes.map((c: Json) => c.path).sort()).toEqual([
      'settings.lastMessage',
      'settings.sysMsg',
      'settings.temperature',
    ])

    const published = await publish(agent.id, 'Warmer tone')
    expect(published.status).toBe(201)
    expect(published.body.data).toMatchObject({
      number: 2,
      note: 'Warmer tone',
      publishedBy: team.owner.userId,
      published: true,
    })
    const settings = published.body.data.settings as Json
    // Every stored setting, by its field name; never the webhook secret or identity fields.
    expect(settings).toMatchObject({
      sysMsg: 'Prompt two.',
      temperature: 0.3,
      lastMessage: 'Bye',
      model: 'gpt-4o-mini',
      agentArchitecture: 'text',
      languages: ['en'],
      handoffAgentIds: [],
      webhookEvents: expect.any(Array),
      fallbackModel: null,
      analysisSchema: null,
    })
    for (const hidden of ['id', 'organizationId', 'userId', 'createdAt', 'updatedAt', 'webhookSecretBox'])
      expect(settings).not.toHaveProperty(hidden)
    expect(published.body.data.functions).toEqual([
      expect.objectContaining({
        name: 'lookup_order',
        endpoint: 'https://orders.example.com/lookup',
        parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      }),
    ])
    expect(JSON.stringify(published.body)).not.toContain('headers')
    expect((await call(`/v1/agents/${agent.id}`)).body.data.systemPrompt).toBe('Prompt two.')
    expect((await call(`/v1/agents/${agent.id}/draft`)).body.data.changes).toEqual([])
    // Nothing left to publish.
    const again = await publish(agent.id)
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ success: false, code: 'conflict' })
    // Versions are listed newest first; only the newest is published.
    const list = (await call(`/v1/agents/${agent.id}/versions`)).body
    expect(list.data.map((v: Json) => [v.number, v.published])).toEqual([
      [2, true],
      [1, false],
    ])
    expect(list.pagination).toEqual({ page: 1, total: 2, hasNext: false })
  })

  it('keeps widget sessions on the published version while the draft changes, and records it', async () => {
    const agent = await makeAgent(server, team.owner, { systemPrompt: 'Published words.' })
    expect((await studioEdit(agent.id, { sysMsg: 'Draft words.' })).status).toBe(200)
    const session = await createChatSession(server, {
      key: widgetKey,
      agentId: agent.id,
      origin: 'https://shop.example.com',
    })
    llm.queue({ text: ['Hello.'] })
    await sendChat(server, session, 'Hi')
    expect(promptSent()).toContain('Published words.')
    expect(promptSent()).not.toContain('Draft words.')

    expect((await publish(agent.id, 'New words')).status).toBe(201)
    const later = await createChatSession(server, {
      key: widgetKey,
      agentId: agent.id,
      origin: 'https://shop.example.com',
    })
    llm.queue({ text: ['Hello again.'] })
    await sendChat(server, later, 'Hi')
    expect(promptSent()).toContain('Draft words.')

    const versions = await server.ctx.db
      .selectFrom('conversations')
      .select(['id', 'agent_version'])
      .where('id', 'in', [session.conversation_id, later.conversation_id])
      .execute()
    expect(Object.fromEntries(versions.map((row) => [row.id, row.agent_version]))).toEqual({
      [session.conversation_id]: 1,
      [later.conversation_id]: 2,
    })
  })

  it("lets the studio's Try it talk to the draft while the widget keeps the published version", async () => {
    const agent = await makeAgent(server, team.owner, { name: 'Shop Bot', systemPrompt: 'Published words.' })
    expect((await studioEdit(agent.id, { sysMsg: 'Draft words.', name: 'Draft Bot' })).status).toBe(200)
    const openSession = (headers: Record<string, string>, json: Record<string, unknown> = {}) =>
      server.request('/v1/chat/sessions', {
        method: 'POST',
        headers,
        json: { agent_id: agent.id, agent_version: 'draft', ...json },
      })
    // The studio's session on the draft: its replies use the draft's settings.
    const studio = await openSession({ 'x-studio-token': team.owner.session.token })
    expect(studio.status).toBe(200)
    const drafted = (await studio.json()) as {
      conversation_id: string
      session_token: string
      agent_name: string
    }
    expect(drafted.agent_name).toBe('Draft Bot')
    llm.queue({ text: ['Draft hello.'] })
    await sendChat(server, drafted, 'Hi')
    expect(promptSent()).toContain('Draft words.')
    expect(promptSent()).not.toContain('Published words.')
    // A widget key meanwhile talks to the published version, and may never ask for the draft.
    const widget = await createChatSession(server, {
      key: widgetKey,
      agentId: agent.id,
      origin: 'https://shop.example.com',
    })
    llm.queue({ text: ['Published hello.'] })
    await sendChat(server, widget, 'Hi')
    expect(promptSent()).toContain('Published words.')
    const keys: Record<string, string>[] = [
      { 'x-api-key': widgetKey, origin: 'https://shop.example.com' },
      { 'x-api-key': key },
    ]
    for (const headers of keys) {
      const refused = await openSession(headers)
      expect(refused.status).toBe(403)
      expect(JSON.stringify(await refused.json())).toContain('studio sessions only')
    }
    expect((await openSession({ 'x-api-key': key }, { agent_version: 'latest' })).status).toBe(400)
    // The draft changes again: the next reply of the studio's conversation follows it.
    await studioEdit(agent.id, { sysMsg: 'Newer draft words.' })
    llm.queue({ text: ['Newer hello.'] })
    await sendChat(server, drafted, 'Again')
    expect(promptSent()).toContain('Newer draft words.')
    const rows = await server.ctx.db
      .selectFrom('conversations')
      .select(['id', 'agent_draft'])
      .where('id', 'in', [drafted.conversation_id, widget.conversation_id])
      .execute()
    expect(Object.fromEntries(rows.map((row) => [row.id, row.agent_draft]))).toEqual({
      [drafted.conversation_id]: true,
      [widget.conversation_id]: false,
    })
    // Another organization's studio cannot open this agent's draft.
    const theirs = await openSession({ 'x-studio-token': other.owner.session.token })
    expect([403, 404]).toContain(theirs.status)
  })

  it('records the version on calls too', async () => {
    const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
    await server.ctx.db
      .insertInto('calls')
      .values({
        id: `call-${agent.id}`,
        organization_id: team.organizationId,
        agent_id: agent.id,
        room_name: `room-${agent.id}`,
        architecture: 'pipeline',
        direction: 'web',
        started_at: new Date(),
        created_at: new Date(),
      } as never)
      .execute()
    const row = await server.ctx.db
      .selectFrom('calls')
      .select('agent_version')
      .where('id', '=', `call-${agent.id}`)
      .executeTakeFirstOrThrow()
    expect(row.agent_version).toBe(1)
  })

  it('restores an old version into the draft and diffs versions', async () => {
    const agent = await makeAgent(server, team.owner, { systemPrompt: 'First.' })
    await studioEdit(agent.id, { sysMsg: 'Second.' })
    await publish(agent.id, 'second')
    await studioEdit(agent.id, { sysMsg: 'Third.', temperature: 0.9 })
    await publish(agent.id, 'third')

    const diff = await call(`/v1/agents/${agent.id}/versions/3/diff`)
    expect(diff.status).toBe(200)
    expect(diff.body.data).toEqual({
      from: 2,
      to: 3,
      changes: [
        { path: 'settings.sysMsg', before: 'Second.', after: 'Third.' },
        { path: 'settings.temperature', before: 0.7, after: 0.9 },
      ],
    })
    const wide = await call(`/v1/agents/${agent.id}/versions/3/diff?against=1`)
    // Version 1 was recorded before the test made the agent live: `active` differs too.
    expect(wide.body.data.changes).toContainEqual({
      path: 'settings.sysMsg',
      before: 'First.',
      after: 'Third.',
    })
    expect((await call(`/v1/agents/${agent.id}/versions/9/diff`)).status).toBe(404)
    expect((await call(`/v1/agents/${agent.id}/versions/3/diff?against=x`)).status).toBe(400)
    expect((await call(`/v1/agents/${agent.id}/versions/3/diff?since=1`)).status).toBe(400)

    const restored = await call(`/v1/agents/${agent.id}/versions/1/restore`, { method: 'POST' })
    expect(restored.status).toBe(200)
    expect(restored.body.data).toMatchObject({ basedOn: 3, settings: { sysMsg: 'First.', temperature: 0.7 } })
    // Restoring changes nothing live until it is published.
    expect((await call(`/v1/agents/${agent.id}`)).body.data.systemPrompt).toBe('Third.')
    const fourth = await publish(agent.id, 'Back to the first')
    expect(fourth.body.data).toMatchObject({ number: 4, settings: { sysMsg: 'First.', temperature: 0.7 } })
    expect((await call(`/v1/agents/${agent.id}`)).body.data).toMatchObject({
      systemPrompt: 'First.',
      temperature: 0.7,
    })
    // Published versions never change.
    expect((await call(`/v1/agents/${agent.id}/versions/3`)).body.data.settings.sysMsg).toBe('Third.')
  })

  it('keeps v1 PATCH and PUT immediate, each recorded as a version; active alone is no version', async () => {
    const agent = await makeAgent(server, team.owner, { systemPrompt: 'Before.' })
    await studioEdit(agent.id, { temperature: 0.2 })
    const patched = await call(`/v1/agents/${agent.id}`, {
      method: 'PATCH',
      json: { systemPrompt: 'Patched.' },
    })
    expect(patched.status).toBe(200)
    expect(patched.body.data.systemPrompt).toBe('Patched.')
    const put = await call(`/v1/agents/${agent.id}`, { method: 'PUT', json: { lastMessage: 'See you' } })
    expect(put.status).toBe(200)
    expect((await call(`/v1/agents/${agent.id}`, { method: 'PATCH', json: { active: false } })).status).toBe(
      200,
    )
    const list = (await call(`/v1/agents/${agent.id}/versions`)).body.data
    expect(list.map((v: Json) => [v.number, v.note])).toEqual([
      [3, 'Changed through the API'],
      [2, 'Changed through the API'],
      [1, 'Created'],
    ])
    // The pending draft took the API's changes: publishing it does not undo them.
    const draft = (await call(`/v1/agents/${agent.id}/draft`)).body.data
    expect(draft.settings).toMatchObject({ sysMsg: 'Patched.', lastMessage: 'See you', temperature: 0.2 })
    expect(draft.changes).toEqual([{ path: 'settings.temperature', before: 0.7, after: 0.2 }])
  })

  it('answers another organization 404 and refuses bad input without change', async () => {
    const agent = await makeAgent(server, team.owner)
    for (const path of [
      `/v1/agents/${agent.id}/versions`,
      `/v1/agents/${agent.id}/versions/1`,
      `/v1/agents/${agent.id}/versions/1/diff`,
      `/v1/agents/${agent.id}/draft`,
    ]) {
      const response = await call(path, { token: otherKey })
      expect(response.status).toBe(404)
      expect(response.body).toMatchObject({ success: false, code: 'not_found' })
    }
    expect(
      (await call(`/v1/agents/${agent.id}/publish`, { method: 'POST', json: {}, token: otherKey })).status,
    ).toBe(404)
    expect(
      (await call(`/v1/agents/${agent.id}/versions/1/restore`, { method: 'POST', token: otherKey })).status,
    ).toBe(404)
    const unknown = await call(`/v1/agents/${agent.id}/publish`, {
      method: 'POST',
      json: { note: 'x', extra: 1 },
    })
    expect(unknown.status).toBe(400)
    expect(unknown.body.code).toBe('validation_error')
    const long = await call(`/v1/agents/${agent.id}/publish`, {
      method: 'POST',
      json: { note: 'x'.repeat(501) },
    })
    expect(long.status).toBe(400)
    expect((await call(`/v1/agents/${agent.id}/versions/0`)).status).toBe(400)
    expect((await call(`/v1/agents/${agent.id}/versions/2`)).status).toBe(404)
    // A member may not publish an owner's public agent through v1.
    const memberKey = await secretKeyFor(server, team.member)
    const shared = await makeAgent(server, team.owner, { mode: 'public' })
    await studioEdit(shared.id, { sysMsg: 'Edited.' })
    expect(
      (await call(`/v1/agents/${shared.id}/publish`, { method: 'POST', json: {}, token: memberKey })).status,
    ).toBe(403)
    expect(other.organizationId).not.toBe(team.organizationId)
  })

  it('gives agents made before versions version 1 from their settings (migration)', async () => {
    const agent = await makeAgent(server, team.owner, { systemPrompt: 'Old agent.' })
    // As before the migration: no versions, no version column values.
    await sql`drop trigger conversations_agent_version on conversations`.execute(server.ctx.db)
    await sql`drop trigger calls_agent_version on calls`.execute(server.ctx.db)
    await sql`drop function record_agent_version()`.execute(server.ctx.db)
    await sql`alter table calls drop column agent_version`.execute(server.ctx.db)
    await sql`alter table conversations drop column agent_version`.execute(server.ctx.db)
    await sql`drop table agent_drafts`.execute(server.ctx.db)
    await sql`drop table agent_versions`.execute(server.ctx.db)
    await migrateVersions(server.ctx.db as never)
    const version = (await call(`/v1/agents/${agent.id}/versions/1`)).body.data
    expect(version).toMatchObject({
      number: 1,
      published: true,
      note: 'Settings before versions',
      publishedBy: team.owner.userId,
      settings: { sysMsg: 'Old agent.', model: 'gpt-4o-mini', active: true, languages: ['en'] },
    })
    expect(version.settings).not.toHaveProperty('webhookSecretBox')
    expect(version.settings).not.toHaveProperty('organizationId')
  })
})
