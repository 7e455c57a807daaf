import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createTeam,
  createTeamWithKeys,
  makeAgent,
  secretKeyFor,
  type TeamKeys,
} from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

let server: TestServer
let team: Awaited<ReturnType<typeof createTeam>>
let keys: TeamKeys
beforeAll(async () => {
  server = await startTestServer()
  ;({ team, keys } = await createTeamWithKeys(server))
})
afterAll(async () => {
  await server.destroy()
})

const v1 = (path: string, init: { method?: string; json?: unknown; key?: string } = {}) =>
  server.request(path, { method: init.method ?? 'GET', json: init.json, token: init.key ?? keys.owner })

const create = (json: Record<string, unknown>, key = keys.owner) =>
  v1('/v1/agents', { method: 'POST', json, key })

const textAgent = {
  name: 'Support',
  agentArchitecture: 'text',
  model: 'gpt-4o-mini',
  systemPrompt: 'Help people.',
}
const pipelineAgent = {
  name: 'Phone',
  agentArchitecture: 'pipeline',
  model: 'gpt-4o-mini',
  stt: 'deepgram-nova-3',
  tts: 'cartesia-sonic-2',
  systemPrompt: 'Answer calls.',
}
const realtimeAgent = {
  name: 'Live',
  agentArchitecture: 'realtime',
  realtimeProvider: 'openai',
  systemPrompt: 'Talk.',
}

describe('POST /v1/agents', () => {
  it('creates an inactive agent and shows the webhook secret once', async () => {
    const response = await create({ ...textAgent, language: 'Urdu' })
    expect(response.status).toBe(201)
    const { success, data } = await response.json()
    expect(success).toBe(true)
    expect(data).toEqual({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      name: 'Support',
      agentArchitecture: 'text',
      active: false,
      createdAt: expect.any(String),
      webhookSecret: expect.stringMatching(/^whsec_/),
    })
    const fetched = await (await v1(`/v1/agents/${data.id}`)).json()
    expect(fetched.data).toMatchObject({
      systemPrompt: 'Help people.',
      language: 'ur',
      tts: null,
      active: false,
      mode: 'private',
    })
    expect(JSON.stringify(fetched)).not.toContain(data.webhookSecret)
    const stored = await sql<{
      webhook_secret_box: string
    }>`select webhook_secret_box from agents where id = ${data.id}`.execute(server.ctx.db)
    expect(stored.rows[0]?.webhook_secret_box).not.toContain(data.webhookSecret)
  })

  it.each([
    ['pipeline', pipelineAgent, ['model', 'stt', 'tts', 'systemPrompt']],
    ['realtime', realtimeAgent, ['realtimeProvider', 'systemPrompt']],
    ['text', textAgent, ['systemPrompt']],
  ] as const)('requires what the %s column of the matrix says', async (_architecture, body, required) => {
    expect((await create(body)).status).toBe(201)
    for (const field of [...required, 'name', 'agentArchitecture']) {
      const { [field]: _dropped, ...rest } = body as Record<string, unknown>
      const response = await create(rest)
      expect({ field, status: response.status }).toEqual({ field, status: 400 })
      expect((await response.json()).code).toBe('validation_error')
    }
  })

  it('gives a text agent created without a model the catalogue default', async () => {
    const { model: _model, ...withoutModel } = textAgent as Record<string, unknown>
    const created = await create(withoutModel)
    expect(created.status).toBe(201)
    const { data } = await created.json()
    const catalogue = await (await v1('/v1/catalogue')).json()
    expect((await (await v1(`/v1/agents/${data.id}`)).json()).data.model).toBe(catalogue.data.defaults.model)
  })

  it('ignores fields the architecture does not use and gives a pipeline agent a default voice', async () => {
    const text = await (
      await create({
        ...textAgent,
        stt: 'deepgram-nova-3',
        tts: 'cartesia-sonic-2',
        voiceId: 'cartesia-katie',
      })
    ).json()
    expect((await (await v1(`/v1/agents/${text.data.id}`)).json()).data).toMatchObject({
      stt: null,
      tts: null,
      voiceId: null,
    })
    const pipeline = await (await create(pipelineAgent)).json()
    expect((await (await v1(`/v1/agents/${pipeline.data.id}`)).json()).data.voiceId).toBe('cartesia-katie')
  })

  it.each([
    ['name', 'x', 400],
    ['name', 'xy', 201],
    ['name', 'n'.repeat(50), 201],
    ['name', 'n'.repeat(51), 400],
    ['systemPrompt', 's'.repeat(5000), 201],
    ['systemPrompt', 's'.repeat(5001), 400],
    ['temperature', -0.1, 400],
    ['temperature', 0, 201],
    ['temperature', 2, 201],
    ['temperature', 2.1, 400],
    ['inactivityTimeout', 9, 400],
    ['inactivityTimeout', 10, 201],
    ['inactivityTimeout', 60, 201],
    ['inactivityTimeout', 61, 400],
    ['language', 'sindhi', 201],
    ['language', 'french', 400],
    ['model', 'gpt-99', 400],
    ['webhookUrl', 'http://hooks.example.com/x', 400],
  ] as const)('%s = %j answers %i', async (field, value, status) => {
    const response = await create({ ...textAgent, [field]: value })
    expect(response.status).toBe(status)
  })

  it('refuses a model whose provider key the organization lacks', async () => {
    const response = await create({ ...textAgent, model: 'llama-3.3-70b-versatile' })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ success: false, code: 'missing_provider_key' })
  })

  it('lets only owners and admins create commercial agents', async () => {
    expect((await create({ ...textAgent, mode: 'commercial' }, keys.member)).status).toBe(403)
    expect((await create({ ...textAgent, mode: 'commercial' }, keys.admin)).status).toBe(201)
  })
})

describe('GET /v1/agents', () => {
  it('pages with page/limit and reports total and hasNext at the edges', async () => {
    const solo = await createTeam(server)
    const key = await secretKeyFor(server, solo.owner)
    for (let i = 0; i < 5; i++)
      await makeAgent(server, solo.owner, { name: `Agent ${i}`, mode: i === 4 ? 'public' : 'private' })
    const page = async (query: string) => (await v1(`/v1/agents${query}`, { key })).json()
    expect((await page('')).pagination).toEqual({ page: 1, total: 5, hasNext: false })
    const first = await page('?limit=2')
    expect(first.data).toHaveLength(2)
    expect(first.pagination).toEqual({ page: 1, total: 5, hasNext: true })
    expect(first.data[0]).toEqual({
      id: expect.any(String),
      name: 'Agent 4',
      mode: 'public',
      agentArchitecture: 'text',
      active: true,
      createdAt: expect.any(String),
    })
    expect((await page('?limit=2&page=2')).pagination.hasNext).toBe(true)
    expect((await page('?limit=2&page=3')).pagination).toEqual({ page: 3, total: 5, hasNext: false })
    expect((await page('?limit=2&page=4')).data).toEqual([])
    expect((await page('?limit=100')).data).toHaveLength(5)
    expect((await page('?mode=public')).pagination.total).toBe(1)
    for (const query of ['?page=0', '?limit=0', '?limit=101', '?page=x', '?mode=secret']) {
      expect((await v1(`/v1/agents${query}`, { key })).status).toBe(400)
    }
  })

  it('shows private agents only to their creator, admins and owners', async () => {
    const agent = await makeAgent(server, team.member, { mode: 'private', name: 'Secret Plan' })
    const names = async (key: string) =>
      ((await (await v1('/v1/agents?limit=100', { key })).json()).data as { id: string }[]).map((a) => a.id)
    expect(await names(keys.owner)).toContain(agent.id)
    expect(await names(keys.admin)).toContain(agent.id)
    expect(await names(keys.member)).toContain(agent.id)
    expect(await names(keys.otherMember)).not.toContain(agent.id)
  })
})

describe('who may do what on v1', () => {
  type Cell = 200 | 403 | 404
  // The agents are created by `member`; rows are the key's creator, columns the agent's mode.
  const table: [actor: keyof typeof keys, Record<'public' | 'private' | 'commercial', Cell>][] = [
    ['owner', { public: 200, private: 403, commercial: 200 }],
    ['admin', { public: 200, private: 403, commercial: 200 }],
    ['member', { public: 403, private: 200, commercial: 403 }],
    ['otherMember', { public: 403, private: 404, commercial: 403 }],
  ]

  const agentIn = async (mode: 'public' | 'private' | 'commercial') => {
    const agent = await makeAgent(server, team.member, { mode: mode === 'commercial' ? 'public' : mode })
    if (mode === 'commercial')
      await sql`update agents set mode = 'commercial' where id = ${agent.id}`.execute(server.ctx.db)
    return agent
  }

  it.each(table)('%s: PATCH, PUT and DELETE', async (actor, expected) => {
    for (const mode of ['public', 'private', 'commercial'] as const) {
      for (const [method, json] of [
        ['PATCH', { systemPrompt: 'Changed' }],
        ['PUT', { sysMsg: 'Changed' }],
        ['DELETE', undefined],
      ] as const) {
        const agent = await agentIn(mode)
        const response = await v1(`/v1/agents/${agent.id}`, { method, json, key: keys[actor] })
        expect({ mode, method, status: response.status }).toEqual({ mode, method, status: expected[mode] })
      }
    }
  })

  it('GET follows visibility: only the private column hides', async () => {
    for (const [actor, expected] of table) {
      for (const mode of ['public', 'private', 'commercial'] as const) {
        const agent = await agentIn(mode)
        const status = (await v1(`/v1/agents/${agent.id}`, { key: keys[actor] })).status
        expect({ actor, mode, status }).toEqual({ actor, mode, status: expected[mode] === 404 ? 404 : 200 })
      }
    }
  })
})

describe('updates', () => {
  it('PATCH changes any subset, can activate, and answers the agent in the get form', async () => {
    const { data } = await (await create(textAgent)).json()
    const response = await v1(`/v1/agents/${data.id}`, {
      method: 'PATCH',
      json: { systemPrompt: 'New', temperature: 1.5, active: true },
    })
    expect(response.status).toBe(200)
    expect((await response.json()).data).toMatchObject({
      id: data.id,
      systemPrompt: 'New',
      temperature: 1.5,
      active: true,
      language: 'en',
    })
    const architecture = await v1(`/v1/agents/${data.id}`, {
      method: 'PATCH',
      json: { agentArchitecture: 'pipeline' },
    })
    expect(architecture.status).toBe(400)
    expect(await architecture.json()).toEqual({
      success: false,
      error: 'agentArchitecture cannot be changed after creation',
      code: 'validation_error',
    })
  })

  it('PATCH takes back what GET returns, and PUT fields, and names any unknown field', async () => {
    const { data } = await (await create(textAgent)).json()
    const fetched = (await (await v1(`/v1/agents/${data.id}`)).json()).data
    const sentBack = await v1(`/v1/agents/${data.id}`, {
      method: 'PATCH',
      json: { ...fetched, enabledCustomFunctions: [], temperature: 0.3 },
    })
    expect(sentBack.status).toBe(200)
    expect((await sentBack.json()).data.temperature).toBe(0.3)
    const studioWords = await v1(`/v1/agents/${data.id}`, {
      method: 'PATCH',
      json: { sysMsg: 'Studio words', languages: ['ur'] },
    })
    expect((await studioWords.json()).data).toMatchObject({ systemPrompt: 'Studio words', language: 'ur' })

    const typo = await v1(`/v1/agents/${data.id}`, { method: 'PATCH', json: { temprature: 0.5, bogus: 1 } })
    expect(typo.status).toBe(400)
    const body = await typo.json()
    expect(body).toMatchObject({ success: false, code: 'validation_error' })
    expect(body.issues.map((issue: { field: string }) => issue.field)).toEqual(['temprature', 'bogus'])
    const put = await v1(`/v1/agents/${data.id}`, { method: 'PUT', json: { systemPrompt: 'x' } })
    expect(put.status).toBe(400)
    expect((await put.json()).error).toContain('systemPrompt')
    for (const json of [{ id: 'another' }, { systemPrompt: 'a', sysMsg: 'b' }]) {
      const refused = await v1(`/v1/agents/${data.id}`, { method: 'PATCH', json })
      expect(refused.status).toBe(400)
    }
    expect((await (await v1(`/v1/agents/${data.id}`)).json()).data.systemPrompt).toBe('Studio words')
  })

  it('PUT takes the studio vocabulary and answers {success, data: {agent}}', async () => {
    const { data } = await (await create(pipelineAgent)).json()
    const response = await v1(`/v1/agents/${data.id}`, {
      method: 'PUT',
      json: {
        sysMsg: 'Studio words',
        languages: ['en', 'ur'],
        inactivityTimeout: 45,
        voiceId: 'cartesia-ronald',
      },
    })
    expect(response.status).toBe(200)
    expect((await response.json()).data.agent).toMatchObject({
      sysMsg: 'Studio words',
      inactivityTimeout: 45,
      languages: [
        { id: 'en', language: 'English' },
        { id: 'ur', language: 'Urdu' },
      ],
      VoiceOption: { voiceId: 'cartesia-ronald', voiceName: 'Ronald', provider: 'cartesia-sonic-2' },
    })
    expect((await v1(`/v1/agents/${data.id}`, { method: 'PUT', json: { voiceId: null } })).status).toBe(400)
  })

  it('rotates the webhook secret', async () => {
    const { data } = await (await create(textAgent)).json()
    const rotated = await (await v1(`/v1/agents/${data.id}/webhook-secret`, { method: 'POST' })).json()
    expect(rotated.data.webhookSecret).toMatch(/^whsec_/)
    expect(rotated.data.webhookSecret).not.toBe(data.webhookSecret)
  })
})

describe('DELETE /v1/agents/{agentId}', () => {
  it('removes the configuration, keeps its conversations readable and drops it from handoff lists', async () => {
    const { data: target } = await (await create(textAgent)).json()
    const { data: router } = await (
      await create({ ...textAgent, name: 'Router', handoffAgentIds: [target.id] })
    ).json()
    await sql`insert into conversations (id, organization_id, agent_id, agent_name) values ('conv-1', ${team.organizationId}, ${target.id}, 'Support')`.execute(
      server.ctx.db,
    )

    const response = await v1(`/v1/agents/${target.id}`, { method: 'DELETE' })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ success: true, data: { message: 'Agent Support deleted' } })
    expect((await v1(`/v1/agents/${target.id}`)).status).toBe(404)
    const conversation = await sql<{
      agent_name: string
    }>`select agent_name from conversations where id = 'conv-1'`.execute(server.ctx.db)
    expect(conversation.rows).toEqual([{ agent_name: 'Support' }])
    expect((await (await v1(`/v1/agents/${router.id}`)).json()).data.handoffAgentIds).toEqual([])
  })
})

describe('handoffAgentIds', () => {
  it('hands a chat to text agents and a call to voice agents, never across', async () => {
    const { data: text } = await (await create(textAgent)).json()
    const { data: live } = await (await create(realtimeAgent)).json()
    const phone = await create({ ...pipelineAgent, handoffAgentIds: [live.id] })
    expect(phone.status).toBe(201)
    const { data: created } = await phone.json()
    expect((await (await v1(`/v1/agents/${created.id}`)).json()).data.handoffAgentIds).toEqual([live.id])

    const voiceToText = await create({ ...pipelineAgent, handoffAgentIds: [text.id] })
    expect(voiceToText.status).toBe(400)
    expect((await voiceToText.json()).error).toBe(
      `handoffAgentIds: ${text.id} is not another voice agent of this organization`,
    )
    const textToVoice = await create({ ...textAgent, handoffAgentIds: [live.id] })
    expect(textToVoice.status).toBe(400)
    expect((await textToVoice.json()).error).toMatch(/is not another text agent/)
  })
})

describe('tenant isolation', () => {
  it("answers 404 for every agent route with another organization's agent id", async () => {
    const other = await createTeam(server)
    const foreign = await makeAgent(server, other.owner, { mode: 'public' })
    for (const [method, path, json] of [
      ['GET', '', undefined],
      ['PATCH', '', { systemPrompt: 'x' }],
      ['PUT', '', { sysMsg: 'x' }],
      ['DELETE', '', undefined],
      ['POST', '/webhook-secret', undefined],
    ] as const) {
      const response = await v1(`/v1/agents/${foreign.id}${path}`, { method, json })
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 })
    }
    expect((await create({ ...textAgent, handoffAgentIds: [foreign.id] })).status).toBe(400)
  })

  it('serves the catalogue', async () => {
    const { data } = await (await v1('/v1/catalogue')).json()
    expect(data.models.map((m: { id: string }) => m.id)).toContain('gpt-4o-mini')
    expect(data.functions.map((f: { id: string }) => f.id)).toEqual([
      'end_call',
      'send_dtmf',
      'opt_out',
      'web_search',
    ])
  })
})

describe('Idempotency-Key on POST /v1/agents', () => {
  it('replays the first response, creates one row, and refuses the key with another body', async () => {
    const headers = { 'idempotency-key': `create-${Date.now()}` }
    const send = (json: unknown) =>
      server.request('/v1/agents', { method: 'POST', json, token: keys.owner, headers })
    const body = { ...textAgent, name: 'Once Only' }
    const [first, second] = await Promise.all([send(body), send(body)])
    expect(first.status).toBe(201)
    expect(second.status).toBe(201)
    const [a, b] = [await first.text(), await second.text()]
    expect(b).toBe(a)
    const rows = await sql<{
      n: number
    }>`select count(*)::int as n from agents where name = 'Once Only'`.execute(server.ctx.db)
    expect(rows.rows[0]?.n).toBe(1)
    const other = await send({ ...body, name: 'Another' })
    expect(other.status).toBe(409)
  })
})
