import { randomBytes } from 'node:crypto'
import { ZCallHandoffResponse, ZCallSetupResponse } from '@parley/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerPhoneNumber } from '../../test/helpers/batch.ts'
import { setBalanceMicros } from '../../test/helpers/billing.ts'
import { type FakeLiveKit, startFakeLiveKit } from '../../test/helpers/fake-livekit.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import {
  addLookupOrderFunction,
  backdateCall,
  findCallOfRoom,
  startVoiceSession,
} from '../../test/helpers/voice.ts'
import { priceCall } from '../calls/pricing.ts'

const WORKER_TOKEN = randomBytes(24).toString('hex')
const FUNCTION_HOST = 'functions.example.test'
let fake: FakeLiveKit
let server: TestServer
let team: Awaited<ReturnType<typeof createTeam>>
let key: string

beforeAll(async () => {
  fake = await startFakeLiveKit()
  server = await startTestServer({
    env: {
      ...fake.env,
      WORKER_TOKEN,
      OPENAI_API_KEY: 'sk-platform-openai',
      DEEPGRAM_API_KEY: 'dg-platform',
      CARTESIA_API_KEY: 'cartesia-platform',
      SEARCH_URL: 'https://search.example.test/search',
      SEARCH_API_KEY: 'search-platform',
      OUTBOUND_ALLOW_HOSTS: FUNCTION_HOST,
    },
  })
  team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
})
afterAll(async () => {
  await server?.destroy()
  await fake?.close()
})

const worker = (path: string, init: { method?: string; json?: unknown; token?: string } = {}) =>
  server.request(path, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    json: init.json,
    token: init.token ?? WORKER_TOKEN,
  })

const storeOrganizationKeys = async (keys: Record<string, string>) => {
  const response = await server.request(`/api/organizations/${team.organizationId}/provider-keys`, {
    method: 'PUT',
    token: team.owner.session.token,
    json: { keys },
  })
  expect(response.status).toBe(200)
}

/** A pipeline agent with one custom function and web search, which may hand calls to `handoffAgentIds`. */
const pipelineAgent = async (overrides: Record<string, unknown> = {}) => {
  const agent = await makeAgent(server, team.owner, {
    agentArchitecture: 'pipeline',
    name: 'Front Desk',
    language: 'Urdu',
    enabledFunctions: ['end_call', 'web_search'],
    ...overrides,
  })
  const functionId = await addLookupOrderFunction(server, { key, agentId: agent.id, host: FUNCTION_HOST })
  return { agent, functionId }
}

describe('GET /v1/calls/{callId}/setup', () => {
  it('resolves the agent’s providers with the organization’s own key where it has one', async () => {
    await storeOrganizationKeys({ deepgram: 'dg-org-secret-4321' })
    const { agent, functionId } = await pipelineAgent()
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    const response = await worker(`/v1/calls/${session.callId}/setup`)
    expect(response.status).toBe(200)
    const body = ZCallSetupResponse.parse(await response.json())
    expect(body.data).toEqual({
      llm: {
        provider: 'openai',
        api: 'openai',
        baseUrl: 'https://api.openai.com/v1',
        apiKey: 'sk-platform-openai',
        model: 'gpt-4o-mini',
        keySource: 'platform',
      },
      fallbackLlm: null,
      fallbackStt: null,
      fallbackTts: null,
      memory: null,
      // Answering-machine detection's own models are for realtime agents' outbound calls only.
      amd: null,
      stt: {
        provider: 'deepgram',
        api: 'deepgram',
        baseUrl: 'https://api.deepgram.com/v1',
        apiKey: 'dg-org-secret-4321',
        model: 'nova-3',
        keySource: 'organization',
        language: 'ur',
      },
      tts: {
        provider: 'cartesia',
        api: 'cartesia',
        baseUrl: 'https://api.cartesia.ai',
        apiKey: 'cartesia-platform',
        model: 'sonic-2',
        keySource: 'platform',
        voice: 'f786b574-daa5-4673-aa0c-cbe3e8534c02',
      },
      realtime: null,
      functions: [
        expect.objectContaining({
          id: functionId,
          name: 'lookup_order',
          headers: { Authorization: 'Bearer customer-secret-9876' },
        }),
      ],
      webSearch: { url: 'https://search.example.test/search', apiKey: 'search-platform' },
      history: [],
    })
    // A worker took the call: the agent-join deadline no longer applies.
    expect((await findCallOfRoom(server, session.room_name)).agent_taken_at).not.toBeNull()
  })

  it('resolves the fallback model with its own provider’s key, sent to that provider only', async () => {
    await storeOrganizationKeys({ groq: 'gsk-org-groq-5678' })
    const { agent } = await pipelineAgent({ fallbackModel: 'llama-3.3-70b-versatile' })
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    const body = ZCallSetupResponse.parse(await (await worker(`/v1/calls/${session.callId}/setup`)).json())
    expect(body.data.llm).toMatchObject({ provider: 'openai', apiKey: 'sk-platform-openai' })
    expect(body.data.fallbackLlm).toEqual({
      provider: 'groq',
      api: 'openai',
      baseUrl: 'https://api.groq.com/openai/v1',
      apiKey: 'gsk-org-groq-5678',
      model: 'llama-3.3-70b-versatile',
      keySource: 'organization',
    })
  })

  it('resolves a realtime agent’s model and voice, and gives no search to an agent without it', async () => {
    const agent = await makeAgent(server, team.owner, { agentArchitecture: 'realtime', voiceId: 'verse' })
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    const body = await (await worker(`/v1/calls/${session.callId}/setup`)).json()
    expect(body.data).toMatchObject({
      llm: null,
      fallbackLlm: null,
      stt: null,
      tts: null,
      realtime: {
        provider: 'openai',
        model: 'gpt-4o-realtime-preview',
        voice: 'verse',
        keySource: 'platform',
      },
      functions: [],
      webSearch: null,
    })
  })

  it("gives a realtime agent's outbound call what answering-machine detection runs on", async () => {
    await storeOrganizationKeys({ deepgram: 'dg-org-amd-2468' })
    const agent = await makeAgent(server, team.owner, {
      agentArchitecture: 'realtime',
      analysisModel: 'gpt-4o',
      language: 'Urdu',
    })
    const fromPhoneNumberId = await registerPhoneNumber(server, key, {
      number: '+14155550142',
      sipTrunkId: 'ST_amd',
    })
    await setBalanceMicros(server, { organizationId: team.organizationId, micros: 10_000_000 })
    fake.scriptSip('+14155550143', { result: 'answered' })
    const placed = await server.request('/v1/calls', {
      method: 'POST',
      token: key,
      json: { fromPhoneNumberId, to: '+14155550143', agentId: agent.id },
    })
    expect(placed.status).toBe(201)
    const { data: call } = await placed.json()
    const body = ZCallSetupResponse.parse(await (await worker(`/v1/calls/${call.id}/setup`)).json())
    // Its analysisModel with the platform's OpenAI key; the default STT with the organization's
    // own Deepgram key, in the agent's language.
    expect(body.data.amd).toEqual({
      llm: {
        provider: 'openai',
        api: 'openai',
        baseUrl: 'https://api.openai.com/v1',
        apiKey: 'sk-platform-openai',
        model: 'gpt-4o',
        keySource: 'platform',
      },
      stt: {
        provider: 'deepgram',
        api: 'deepgram',
        baseUrl: 'https://api.deepgram.com/v1',
        apiKey: 'dg-org-amd-2468',
        model: 'nova-3',
        keySource: 'organization',
        language: 'ur',
      },
    })
    expect(body.data.llm).toBeNull()
    // A web call of the same agent has no callee to detect.
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    const web = ZCallSetupResponse.parse(await (await worker(`/v1/calls/${session.callId}/setup`)).json())
    expect(web.data.amd).toBeNull()
    await server.request(`/v1/calls/${call.id}/hangup`, { method: 'POST', token: key })
  })

  it('says which entry cannot be served when its provider is not configured (409)', async () => {
    const agent = await makeAgent(server, team.owner, {
      agentArchitecture: 'pipeline',
      tts: 'elevenlabs-flash-v2.5',
      voiceId: 'eleven-rachel',
    })
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    const response = await worker(`/v1/calls/${session.callId}/setup`)
    expect(response.status).toBe(409)
    expect(await response.json()).toEqual({
      success: false,
      code: 'provider_not_configured',
      error: expect.stringMatching(/elevenlabs-flash-v2\.5 cannot be used: .*ELEVENLABS_API_KEY/),
    })
  })

  it('refuses anyone but the worker, and answers 404 for an unknown call', async () => {
    const agent = await makeAgent(server, team.owner, { agentArchitecture: 'realtime' })
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    expect((await worker(`/v1/calls/${session.callId}/setup`, { token: key })).status).toBe(401)
    expect((await server.request(`/v1/calls/${session.callId}/setup`)).status).toBe(401)
    const unknown = await worker('/v1/calls/no-such-call/setup')
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ success: false, code: 'not_found' })
    // The functions endpoint it replaces is gone.
    expect((await worker(`/v1/calls/${session.callId}/functions`)).status).toBe(404)
  })
})

describe('POST /v1/calls/{callId}/handoff', () => {
  it('hands the call to a listed voice agent: its configuration and setup, billed at its price from now', async () => {
    const billing = await makeAgent(server, team.owner, {
      agentArchitecture: 'realtime',
      name: 'Billing Desk',
      systemPrompt: 'You handle invoices.',
    })
    const other = await makeAgent(server, team.owner, { agentArchitecture: 'realtime' })
    const { agent } = await pipelineAgent({ handoffAgentIds: [billing.id] })
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    await backdateCall(server, session.room_name, 60)
    const path = `/v1/calls/${session.callId}/handoff`

    const refused = await worker(path, { json: { agentId: other.id } })
    expect(refused.status).toBe(400)
    expect(await refused.json()).toMatchObject({ success: false, code: 'invalid_handoff_target' })
    const foreign = await makeAgent(server, (await createTeam(server)).owner, {
      agentArchitecture: 'realtime',
    })
    expect((await worker(path, { json: { agentId: foreign.id } })).status).toBe(404)
    expect((await worker(path, { json: { agentId: billing.id, extra: 1 } })).status).toBe(400)
    expect((await worker('/v1/calls/no-such-call/handoff', { json: { agentId: billing.id } })).status).toBe(
      404,
    )

    const before = await findCallOfRoom(server, session.room_name)
    const response = await worker(path, { json: { agentId: billing.id } })
    expect(response.status).toBe(200)
    const { data } = ZCallHandoffResponse.parse(await response.json())
    expect(data.agent).toMatchObject({
      id: billing.id,
      name: 'Billing Desk',
      architecture: 'realtime',
      prompt: 'You handle invoices.',
    })
    expect(data.setup).toMatchObject({ llm: null, realtime: { provider: 'openai' } })
    const call = await findCallOfRoom(server, session.room_name)
    expect(call).toMatchObject({ live_agent_id: billing.id, architecture: 'realtime' })
    // The time before the handoff is priced at the pipeline agent's rate; the new stretch starts then.
    const beforeHandoff = Math.ceil(
      ((call.billing_since as Date).getTime() - (before.billing_since as Date).getTime()) / 1000,
    )
    expect(beforeHandoff).toBeGreaterThanOrEqual(60)
    expect(Number(call.accrued_micros)).toBe(priceCall(Number(before.micros_per_minute), beforeHandoff))
    const listed = await (await server.request(`/v1/calls/${session.callId}`, { token: key })).json()
    expect(listed.data).toMatchObject({
      agentId: agent.id,
      liveAgentId: billing.id,
      architecture: 'realtime',
    })

    // The live agent is now the billing desk, which lists no one to hand to.
    expect((await worker(path, { json: { agentId: billing.id } })).status).toBe(400)
    await worker(`/v1/calls/${session.callId}/end`, { json: { reason: 'agent_ended' } })
    const ended = await worker(path, { json: { agentId: billing.id } })
    expect(ended.status).toBe(409)
    expect(await ended.json()).toMatchObject({ code: 'call_ended' })
  })
})

describe('POST /v1/calls/{callId}/end', () => {
  it('closes the call with the agent’s reason and deletes its room, once', async () => {
    const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    await backdateCall(server, session.room_name, 30)
    const path = `/v1/calls/${session.callId}/end`
    expect((await worker(path, { json: { reason: 'bored' } })).status).toBe(400)
    expect((await worker(path, { json: {} })).status).toBe(400)

    const first = await worker(path, { json: { reason: 'inactivity' } })
    expect(first.status).toBe(200)
    expect(await first.json()).toEqual({ success: true, data: { ended: true } })
    const call = await findCallOfRoom(server, session.room_name)
    expect(call).toMatchObject({ status: 'ended', end_reason: 'inactivity' })
    expect(Number(call.cost_micros)).toBeGreaterThanOrEqual(priceCall(Number(call.micros_per_minute), 30))
    expect(fake.rooms.has(session.room_name)).toBe(false)

    const again = await worker(path, { json: { reason: 'agent_ended' } })
    expect(await again.json()).toEqual({ success: true, data: { ended: false } })
    expect((await findCallOfRoom(server, session.room_name)).end_reason).toBe('inactivity')
    expect((await worker('/v1/calls/no-such-call/end', { json: { reason: 'agent_ended' } })).status).toBe(404)
  })

  it('lists the worker endpoints in the OpenAPI document', async () => {
    const document = (await (await server.request('/v1/openapi.json')).json()) as {
      paths: Record<string, unknown>
    }
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/v1/calls/{callId}/setup',
        '/v1/calls/{callId}/handoff',
        '/v1/calls/{callId}/end',
        '/v1/calls/{callId}/transcript',
      ]),
    )
    expect(Object.keys(document.paths)).not.toContain('/v1/calls/{callId}/functions')
  })
})

describe('GET /v1/calls/{callId}', () => {
  it('shows the live agent (the dispatched one before any handoff)', async () => {
    const agent = await makeAgent(server, team.owner, { agentArchitecture: 'realtime' })
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    const { data } = await (await server.request(`/v1/calls/${session.callId}`, { token: key })).json()
    expect(data).toMatchObject({ agentId: agent.id, liveAgentId: agent.id })
  })
})
