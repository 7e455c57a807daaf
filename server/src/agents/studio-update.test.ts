import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signUp } from '../../test/helpers/accounts.ts'
import { createTeam, type Member, makeAgent } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

let server: TestServer
let team: Awaited<ReturnType<typeof createTeam>>
beforeAll(async () => {
  server = await startTestServer()
  team = await createTeam(server)
})
afterAll(async () => {
  await server.destroy()
})

const update = (agentId: string, json: unknown, member: Member = team.owner) =>
  server.request(`/api/agents/${agentId}`, { method: 'PUT', token: member.session.token, json })

describe('PUT /api/agents/{agentId}', () => {
  it('changes only the fields sent and answers with languages objects and VoiceOption', async () => {
    const agent = await makeAgent(server, team.owner, {
      agentArchitecture: 'pipeline',
      description: 'Before',
    })
    const response = await update(agent.id, { name: 'Renamed', languages: ['English', 'URDU', 'sd'] })
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body).toEqual({ success: true, agent: expect.any(Object) })
    expect(body.agent).toMatchObject({
      id: agent.id,
      name: 'Renamed',
      description: 'Before',
      languages: [
        { id: 'en', language: 'English' },
        { id: 'ur', language: 'Urdu' },
        { id: 'sd', language: 'Sindhi' },
      ],
      VoiceOption: { voiceId: 'cartesia-katie', voiceName: 'Katie', provider: 'cartesia-sonic-2' },
      organizationId: team.organizationId,
      userId: team.owner.userId,
    })
    expect(body.agent).not.toHaveProperty('webhookSecretBox')
  })

  describe('architecture rules', () => {
    it.each([
      ['pipeline', { voiceId: null }, 'Pipeline agents require voiceId'],
      ['pipeline', { model: null }, 'Pipeline agents require model'],
      ['pipeline', { stt: null }, 'Pipeline agents require stt'],
      ['realtime', { realtimeProvider: null }, 'Realtime agents require realtimeProvider'],
      ['realtime', { voiceId: null }, 'Realtime agents require voiceId'],
      ['text', { model: null }, 'Text agents require model'],
    ] as const)('%s with %j is refused', async (agentArchitecture, json, message) => {
      const agent = await makeAgent(server, team.owner, { agentArchitecture })
      const response = await update(agent.id, json)
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({
        code: expect.any(String),
        error: expect.stringContaining(message),
      })
    })

    it('lets a userFirst realtime agent go without a voice and clears fields text agents do not use', async () => {
      const realtime = await makeAgent(server, team.owner, { agentArchitecture: 'realtime' })
      expect((await update(realtime.id, { greetingType: 'userFirst', voiceId: null })).status).toBe(200)
      const text = await makeAgent(server, team.owner)
      const body = await (await update(text.id, { stt: 'deepgram-nova-3', voiceId: 'cartesia-katie' })).json()
      expect(body.agent).toMatchObject({ stt: null, voiceId: null, VoiceOption: null })
    })

    it('refuses a change of architecture', async () => {
      const agent = await makeAgent(server, team.owner)
      const response = await update(agent.id, { agentArchitecture: 'pipeline' })
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({
        code: expect.any(String),
        error: 'agentArchitecture cannot be changed after creation',
      })
    })

    it('refuses values outside the catalogue, listing the allowed ones', async () => {
      const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
      const response = await update(agent.id, { model: 'gpt-99' })
      expect(response.status).toBe(400)
      expect((await response.json()).error).toMatch(/^model must be one of: .*gpt-4o-mini/)
      const voice = await update(agent.id, { voiceId: 'alloy' })
      expect((await voice.json()).error).toMatch(
        /^voiceId for cartesia-sonic-2 must be one of: cartesia-katie, cartesia-ronald/,
      )
    })
  })

  describe('bounds at their edges', () => {
    let agentId: string
    beforeAll(async () => {
      agentId = (await makeAgent(server, team.owner)).id
    })

    it.each([
      ['name', 'x', 400],
      ['name', 'xy', 200],
      ['name', 'x'.repeat(50), 200],
      ['name', 'x'.repeat(51), 400],
      ['name', '', 400],
      ['description', '', 400],
      ['description', 'd'.repeat(200), 200],
      ['description', 'd'.repeat(201), 400],
      ['sysMsg', 's'.repeat(5000), 200],
      ['sysMsg', 's'.repeat(5001), 400],
      ['sysMsg', '', 400],
      ['lastMessage', 'l'.repeat(100), 200],
      ['lastMessage', 'l'.repeat(101), 400],
      ['inactivityTimeout', 9, 400],
      ['inactivityTimeout', 10, 200],
      ['inactivityTimeout', 60, 200],
      ['inactivityTimeout', 61, 400],
      ['inactivityTimeout', 30.5, 400],
      ['temperature', 0.05, 400],
      ['temperature', 0.1, 200],
      ['temperature', 1.0, 200],
      ['temperature', 1.1, 400],
      ['languages', [], 400],
      ['languages', ['fr'], 400],
      ['mode', 'secret', 400],
      ['realtimeProvider', 'azure', 400],
      ['greetingType', 'botFirst', 400],
    ] as const)('%s = %j answers %i', async (field, value, status) => {
      const response = await update(agentId, { [field]: value })
      expect(response.status).toBe(status)
      if (status === 400)
        expect(Object.keys(await response.json())).toEqual(expect.arrayContaining(['error', 'code']))
    })

    it('says what is wrong in the spec words', async () => {
      expect(await (await update(agentId, { mode: 'secret' })).json()).toMatchObject({
        error: 'mode: Invalid mode. Must be public, private or commercial',
        code: 'validation_error',
      })
      expect(await (await update(agentId, { languages: ['fr'] })).json()).toMatchObject({
        error: 'languages.0: Invalid language. Valid languages are: en, ur, sd',
        code: 'validation_error',
      })
      expect(await (await update(agentId, { name: '' })).json()).toMatchObject({
        code: expect.any(String),
        error: 'name: name is required',
      })
    })
  })

  describe('who may update what (studio)', () => {
    type Cell = 200 | 403 | 404
    // rows: actor; columns: the agent's mode. The agents are created by `member`.
    const table: [
      actor: 'owner' | 'admin' | 'member' | 'otherMember',
      Record<'public' | 'private' | 'commercial', Cell>,
    ][] = [
      ['owner', { public: 200, private: 200, commercial: 200 }],
      ['admin', { public: 200, private: 200, commercial: 200 }],
      ['member', { public: 200, private: 200, commercial: 403 }],
      ['otherMember', { public: 403, private: 404, commercial: 403 }],
    ]

    it.each(table)('%s', async (actorName, expected) => {
      for (const mode of ['public', 'private', 'commercial'] as const) {
        const agent = await makeAgent(server, team.member, { mode: mode === 'commercial' ? 'public' : mode })
        if (mode === 'commercial') {
          await sql`update agents set mode = 'commercial' where id = ${agent.id}`.execute(server.ctx.db)
        }
        const response = await update(agent.id, { description: `edited by ${actorName}` }, team[actorName])
        expect({ mode, status: response.status }).toEqual({ mode, status: expected[mode] })
      }
    })

    it('lets only owners and admins set mode to commercial', async () => {
      const agent = await makeAgent(server, team.member)
      const byMember = await update(agent.id, { mode: 'commercial' }, team.member)
      expect(byMember.status).toBe(403)
      expect(await byMember.json()).toMatchObject({
        code: expect.any(String),
        error: 'Only owners and admins can set mode to commercial',
      })
      expect((await update(agent.id, { mode: 'commercial' }, team.admin)).status).toBe(200)
    })

    it("answers 404 for another organization's agent and 401 without a session", async () => {
      const stranger = await signUp(server)
      const agent = await makeAgent(server, team.owner)
      const response = await server.request(`/api/agents/${agent.id}`, {
        method: 'PUT',
        token: stranger.token,
        json: { name: 'Mine' },
      })
      expect(response.status).toBe(404)
      expect(await response.json()).toMatchObject({ code: expect.any(String), error: 'Agent not found' })
      expect(
        (await server.request(`/api/agents/${agent.id}`, { method: 'PUT', json: { name: 'Anon' } })).status,
      ).toBe(401)
    })
  })

  describe('provider keys', () => {
    it('falls back to the defaults and points to the settings when a key is missing, until it is added', async () => {
      const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
      const missing = await (
        await update(agent.id, { stt: 'groq-whisper-large-v3-turbo', model: 'gemini-2.0-flash' })
      ).json()
      expect(missing).toMatchObject({
        success: true,
        missingKeys: ['gemini', 'groq'],
        usedDefaults: true,
        finalModel: 'gpt-4o-mini',
        finalStt: 'deepgram-nova-3',
        redirectUrl: '/settings/organization/provider-keys',
        agent: { model: 'gpt-4o-mini', stt: 'deepgram-nova-3' },
      })

      const secret = 'gsk_live_abcdefghijklmnop1234'
      const stored = await server.request(`/api/organizations/${team.organizationId}/provider-keys`, {
        method: 'PUT',
        token: team.admin.session.token,
        json: { keys: { groq: secret, gemini: 'gemini-key-5678' } },
      })
      expect(stored.status).toBe(200)
      const listed = await stored.json()
      expect(listed.providers.map((p: { provider: string; last4: string }) => [p.provider, p.last4])).toEqual(
        [
          ['gemini', '5678'],
          ['groq', '1234'],
        ],
      )
      expect(JSON.stringify(listed)).not.toContain(secret)
      const rows = await sql<{ key_box: string }>`select key_box from organization_provider_keys`.execute(
        server.ctx.db,
      )
      expect(rows.rows.every((row) => !row.key_box.includes('abcdefghijklmnop'))).toBe(true)

      const saved = await (
        await update(agent.id, { stt: 'groq-whisper-large-v3-turbo', model: 'gemini-2.0-flash' })
      ).json()
      expect(saved).toEqual({
        success: true,
        agent: expect.objectContaining({ model: 'gemini-2.0-flash', stt: 'groq-whisper-large-v3-turbo' }),
      })
    })

    it('lets members read the list but not change it', async () => {
      const read = await server.request(`/api/organizations/${team.organizationId}/provider-keys`, {
        token: team.member.session.token,
      })
      expect(read.status).toBe(200)
      const write = await server.request(`/api/organizations/${team.organizationId}/provider-keys`, {
        method: 'PUT',
        token: team.member.session.token,
        json: { keys: { groq: 'gsk_member_attempt' } },
      })
      expect(write.status).toBe(403)
    })
  })
})
