import { VOICE_SESSIONS_PER_MINUTE, ZDispatchMetadata } from '@parley/shared'
import { TokenVerifier } from 'livekit-server-sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey } from '../../test/helpers/accounts.ts'
import { setBalanceMicros } from '../../test/helpers/billing.ts'
import { type FakeLiveKit, startFakeLiveKit } from '../../test/helpers/fake-livekit.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { addLookupOrderFunction, findCallOfRoom, startVoiceSession } from '../../test/helpers/voice.ts'

const FUNCTION_HOST = 'functions.example.test'
let fake: FakeLiveKit
let server: TestServer
let team: Awaited<ReturnType<typeof createTeam>>
let key: string

beforeAll(async () => {
  fake = await startFakeLiveKit()
  server = await startTestServer({ env: { ...fake.env, OUTBOUND_ALLOW_HOSTS: FUNCTION_HOST } })
  team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
})
afterAll(async () => {
  await server?.destroy()
  await fake?.close()
})

const startVoice = (body: unknown, headers: Record<string, string> = { 'x-api-key': key }) =>
  server.request('/v1/chat/voice-sessions', { method: 'POST', json: body, headers })

/**
 * A pipeline agent with one enabled custom function (headers are customer secrets) that may hand
 * the call to a realtime agent (a text agent of its list is no call's handoff target).
 */
const pipelineAgentWithFunction = async () => {
  const billing = await makeAgent(server, team.owner, {
    agentArchitecture: 'realtime',
    name: 'Billing Desk',
    description: 'Answers billing questions',
  })
  const agent = await makeAgent(server, team.owner, {
    agentArchitecture: 'pipeline',
    name: 'Voice Helper',
    systemPrompt: 'You answer the phone.',
    temperature: 0.4,
    greetingType: 'agentFirst',
    greetingMessage: 'Hi there',
    handoffAgentIds: [billing.id],
  })
  const functionId = await addLookupOrderFunction(server, { key, agentId: agent.id, host: FUNCTION_HOST })
  await server.ctx.db
    .updateTable('agents')
    .set({ enabled_functions: JSON.stringify(['end_call']) })
    .where('id', '=', agent.id)
    .execute()
  return { agent, functionId, billing }
}

describe('POST /v1/chat/voice-sessions', () => {
  it('creates the room, dispatches the agent with its configuration and returns a 1 h participant token', async () => {
    const { agent, functionId, billing } = await pipelineAgentWithFunction()
    // The organization's own provider key is a secret too.
    const stored = await server.request(`/api/organizations/${team.organizationId}/provider-keys`, {
      method: 'PUT',
      token: team.owner.session.token,
      json: { keys: { deepgram: 'dg-org-secret-4321' } },
    })
    expect(stored.status).toBe(200)
    const callsBefore = fake.calls.length
    const response = await startVoice({ agent_id: agent.id })
    expect(response.status).toBe(200)
    const session = (await response.json()) as Record<string, string>
    expect(Object.keys(session).sort()).toEqual(['agent_name', 'livekit_url', 'room_name', 'token'])
    expect(session.agent_name).toBe('Voice Helper')
    expect(session.livekit_url).toBe(fake.url)
    expect(session.room_name).toMatch(new RegExp(`^agent_${agent.id}_${team.owner.userId}_\\d{13}$`))

    // Twirp calls in the spec's order: the room, then the dispatch.
    const made = fake.calls.slice(callsBefore)
    expect(made.map((call) => call.method)).toEqual([
      'RoomService/CreateRoom',
      'AgentDispatchService/CreateDispatch',
    ])
    const [createRoom, dispatch] = made
    expect(createRoom?.body).toMatchObject({ name: session.room_name })
    const roomClaims = await fake.claimsOf(createRoom as never)
    expect(roomClaims.iss).toBe(fake.apiKey)
    expect(roomClaims.video?.roomCreate).toBe(true)
    const dispatchClaims = await fake.claimsOf(dispatch as never)
    expect(dispatchClaims.video).toMatchObject({ roomAdmin: true, room: session.room_name })
    expect(dispatch?.body).toMatchObject({ room: session.room_name, agentName: 'parley-agent' })

    const metadata = JSON.parse(String(dispatch?.body.metadata))
    const call = await server.ctx.db
      .selectFrom('calls')
      .selectAll()
      .where('room_name', '=', session.room_name as string)
      .executeTakeFirstOrThrow()
    expect(call).toMatchObject({
      status: 'active',
      direction: 'web',
      architecture: 'pipeline',
      agent_id: agent.id,
    })
    expect(ZDispatchMetadata.safeParse(metadata).success).toBe(true)
    expect(metadata).toMatchObject({
      version: 1,
      callId: call.id,
      organizationId: team.organizationId,
      roomName: session.room_name,
      direction: 'web',
      userId: team.owner.userId,
      agent: {
        id: agent.id,
        name: 'Voice Helper',
        architecture: 'pipeline',
        prompt: 'You answer the phone.',
        model: 'gpt-4o-mini',
        stt: 'deepgram-nova-3',
        tts: 'cartesia-sonic-2',
        voice: 'cartesia-katie',
        greetingType: 'agentFirst',
        greeting: 'Hi there',
        temperature: 0.4,
        functionCallingEnabled: true,
        builtInFunctions: ['end_call'],
        customFunctions: [
          {
            id: functionId,
            name: 'lookup_order',
            description: 'Finds an order by its number',
            method: 'POST',
            endpoint: `https://${FUNCTION_HOST}/orders`,
            parameters: {
              type: 'object',
              properties: { orderNumber: { type: 'string' } },
              required: ['orderNumber'],
            },
          },
        ],
        handoffAgents: [{ id: billing.id, name: 'Billing Desk', description: 'Answers billing questions' }],
      },
    })
    expect(metadata).not.toHaveProperty('sipParticipantIdentity')
    expect(metadata.agent).toHaveProperty('inactivityTimeout')
    expect(metadata.agent).toHaveProperty('languages')
    // Customer secrets never travel through LiveKit: no function header, no provider key.
    expect(String(dispatch?.body.metadata)).not.toContain('customer-secret')
    expect(String(dispatch?.body.metadata)).not.toContain('dg-org-secret')
    expect(String(dispatch?.body.metadata)).not.toMatch(/headers|apiKey/i)

    const claims = await new TokenVerifier(fake.apiKey, fake.apiSecret).verify(session.token as string)
    expect(claims.sub).toBe(team.owner.userId)
    expect(claims.video).toEqual({
      room: session.room_name,
      roomJoin: true,
      canPublish: true,
      canSubscribe: true,
      canPublishData: false,
    })
    expect(Number(claims.exp) - Number(claims.nbf)).toBe(3600)
  })

  it('accepts a widget key from an allowed Origin and refuses it from an unlisted one', async () => {
    const agent = await makeAgent(server, team.owner, { agentArchitecture: 'realtime' })
    const widget = await createKey(server, team.owner.session.token, {
      type: 'widget',
      allowedDomains: ['shop.example.com'],
    })
    const allowed = await startVoice(
      { agent_id: agent.id },
      { 'x-api-key': widget.key, origin: 'https://shop.example.com' },
    )
    expect(allowed.status).toBe(200)
    expect(allowed.headers.get('access-control-allow-origin')).toBe('*')
    const unlisted = await startVoice(
      { agent_id: agent.id },
      { 'x-api-key': widget.key, origin: 'https://evil.example.net' },
    )
    expect(unlisted.status).toBe(403)
    expect(await unlisted.json()).toEqual({ detail: expect.any(String), code: 'origin_not_allowed' })
  })

  it('takes the studio token (X-Studio-Token) of a member trying an inactive agent in its own organization only', async () => {
    // The studio's Try it panel: no key, the member is the participant, and the agent need not be live.
    const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline', active: false })
    const studio = { 'x-studio-token': team.member.session.token }
    const response = await startVoice({ agent_id: agent.id }, studio)
    expect(response.status).toBe(200)
    const session = (await response.json()) as { room_name: string; token: string }
    expect(session.room_name).toMatch(new RegExp(`^agent_${agent.id}_${team.member.userId}_\\d{13}$`))
    const claims = await new TokenVerifier(fake.apiKey, fake.apiSecret).verify(session.token)
    expect(claims.sub).toBe(team.member.userId)
    expect(await findCallOfRoom(server, session.room_name)).toMatchObject({
      status: 'active',
      direction: 'web',
      key_id: null,
    })

    const other = await createTeam(server)
    const foreign = await makeAgent(server, other.owner, { agentArchitecture: 'pipeline' })
    const refused = await startVoice({ agent_id: foreign.id }, studio)
    expect(refused.status).toBe(404)
    expect(await refused.json()).toEqual({ detail: expect.any(String), code: 'not_found' })
    const forged = await startVoice({ agent_id: agent.id }, { 'x-studio-token': 'not-a-jwt' })
    expect(forged.status).toBe(401)
  })

  describe('errors, each {detail, code}', () => {
    const expectError = async (response: Response, status: number, code: string, detail?: RegExp) => {
      expect(response.status).toBe(status)
      const body = (await response.json()) as { detail: string; code: string }
      // Validation errors also list their issues, each naming its field.
      expect(body).toEqual({
        detail: expect.any(String),
        code,
        ...(code === 'validation_error' ? { issues: expect.any(Array) } : {}),
      })
      if (detail) expect(body.detail).toMatch(detail)
    }

    it('400 when the agent id is missing', async () => {
      await expectError(await startVoice({}), 400, 'validation_error', /agent id is required/)
      await expectError(await startVoice({ agent_id: '' }), 400, 'validation_error', /agent id is required/)
    })

    it('400 for a text agent', async () => {
      const text = await makeAgent(server, team.owner, { agentArchitecture: 'text' })
      await expectError(
        await startVoice({ agent_id: text.id }),
        400,
        'not_voice_agent',
        /pipeline or realtime/,
      )
    })

    it('401 for a missing or unknown key', async () => {
      await expectError(await startVoice({ agent_id: 'x' }, {}), 401, 'invalid_api_key')
      await expectError(await startVoice({ agent_id: 'x' }, { 'x-api-key': 'nope' }), 401, 'invalid_api_key')
    })

    it('404 for an unknown agent or one of another organization', async () => {
      await expectError(await startVoice({ agent_id: 'no-such-agent' }), 404, 'not_found', /Agent not found/)
      const other = await createTeam(server)
      const foreign = await makeAgent(server, other.owner, { agentArchitecture: 'pipeline' })
      await expectError(await startVoice({ agent_id: foreign.id }), 404, 'not_found', /Agent not found/)
    })

    it('402 when the organization is out of credits, before any room is made', async () => {
      const poor = await createTeam(server)
      const poorKey = await secretKeyFor(server, poor.owner)
      const agent = await makeAgent(server, poor.owner, { agentArchitecture: 'pipeline' })
      await setBalanceMicros(server, { organizationId: poor.organizationId, micros: 0 })
      const before = fake.calls.length
      await expectError(
        await startVoice({ agent_id: agent.id }, { 'x-api-key': poorKey }),
        402,
        'insufficient_credits',
      )
      expect(fake.calls.length).toBe(before)
    })

    it('500 "media server" when LiveKit fails to create the room or to dispatch', async () => {
      const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
      fake.fail('RoomService/CreateRoom')
      try {
        await expectError(await startVoice({ agent_id: agent.id }), 500, 'media_server_error', /media server/)
      } finally {
        fake.heal()
      }
      fake.fail('AgentDispatchService/CreateDispatch')
      try {
        await expectError(await startVoice({ agent_id: agent.id }), 500, 'media_server_error', /media server/)
      } finally {
        fake.heal()
      }
      // The dispatch failure left a failed, unbilled call and no room behind.
      const failed = await server.ctx.db
        .selectFrom('calls')
        .select(['status', 'cost_micros', 'room_name'])
        .where('agent_id', '=', agent.id)
        .execute()
      expect(failed.map((call) => [call.status, Number(call.cost_micros)])).toEqual([['failed', 0]])
      expect(fake.rooms.has(failed[0]?.room_name as string)).toBe(false)
    })
  })
})

describe('revoking the key', () => {
  it('ends its live voice calls: the call closes as key_revoked and its room is deleted', async () => {
    const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
    const revocable = await createKey(server, team.owner.session.token, { name: 'Revocable' })
    const other = await startVoiceSession(server, { key, agentId: agent.id })
    const session = await startVoiceSession(server, { key: revocable.key, agentId: agent.id })
    expect(fake.rooms.has(session.room_name)).toBe(true)

    const revoked = await server.request(`/api/api-keys/${revocable.id}/revoke`, {
      method: 'POST',
      token: team.owner.session.token,
    })
    expect(revoked.status).toBe(200)
    expect(await findCallOfRoom(server, session.room_name)).toMatchObject({
      status: 'ended',
      end_reason: 'key_revoked',
    })
    expect(fake.rooms.has(session.room_name)).toBe(false)
    // A call of another key goes on.
    expect((await findCallOfRoom(server, other.room_name)).status).toBe('active')
    expect(fake.rooms.has(other.room_name)).toBe(true)
  })
})

describe('rate limit', () => {
  it('allows 60 voice sessions a minute per key, then 429 with Retry-After', async () => {
    const limitedKey = await secretKeyFor(server, team.owner)
    // A text agent is refused after the limit is counted, so no rooms are made.
    const text = await makeAgent(server, team.owner, { agentArchitecture: 'text' })
    for (let i = 0; i < VOICE_SESSIONS_PER_MINUTE; i += 1)
      expect((await startVoice({ agent_id: text.id }, { 'x-api-key': limitedKey })).status).toBe(400)
    const limited = await startVoice({ agent_id: text.id }, { 'x-api-key': limitedKey })
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await limited.json()).toEqual({ detail: expect.any(String), code: 'rate_limited' })
    // Another key of the same organization has its own budget.
    expect((await startVoice({ agent_id: text.id })).status).toBe(400)
  })
})

describe('without LiveKit configured', () => {
  it('answers 500 voice_off, chat sessions say voice is unavailable, and the demo page offers no microphone', async () => {
    const bare = await startTestServer({ seedDemo: true })
    try {
      const demoPage = await (await bare.request('/demo/')).text()
      expect(demoPage).toContain('data-voice-agent-id=""')
      expect(demoPage).not.toContain('%PARLEY_VOICE_AGENT_ID%')
      const owner = await createTeam(bare)
      const agent = await makeAgent(bare, owner.owner, { agentArchitecture: 'realtime' })
      const response = await bare.request('/v1/chat/voice-sessions', {
        method: 'POST',
        json: { agent_id: agent.id },
        headers: { 'x-api-key': await secretKeyFor(bare, owner.owner) },
      })
      expect(response.status).toBe(500)
      expect(await response.json()).toEqual({
        detail: expect.stringMatching(/voice is off on this server/),
        code: 'voice_off',
      })
      const text = await makeAgent(bare, owner.owner)
      const chat = await bare.request('/v1/chat/sessions', {
        method: 'POST',
        json: { agent_id: text.id },
        headers: { 'x-api-key': await secretKeyFor(bare, owner.owner) },
      })
      expect(((await chat.json()) as { voice_available: boolean }).voice_available).toBe(false)
    } finally {
      await bare.destroy()
    }
    // A server of its own, with the demo seeded, boots inside this test.
  }, 120_000)
})
