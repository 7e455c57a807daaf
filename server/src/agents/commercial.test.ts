import { ZCallSetupResponse } from '@parley/shared'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { chatCall, createChatSession, sendChat, textOf } from '../../test/helpers/chat.ts'
import type { FakeLlm } from '../../test/helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import type { TestServer } from '../../test/helpers/test-server.ts'
import { startVoiceSession, startVoiceStack, type VoiceStack } from '../../test/helpers/voice.ts'
import { auditBySystem } from '../audit/index.ts'
import { createApiKey } from '../keys/service.ts'

/**
 * `commercial` is globally accessible (DESIGN §7): any organization's keys open chat and voice
 * sessions with another organization's commercial agent, billed to the calling organization and
 * served with its provider keys; the configuration stays its owner's alone.
 */

const SHOP_ORIGIN = 'https://shop.example.test'
let stack: VoiceStack
let WORKER_TOKEN: string
let llm: FakeLlm
let server: TestServer
let owner: Awaited<ReturnType<typeof createTeam>>
let caller: Awaited<ReturnType<typeof createTeam>>
let ownerKey: string
let callerKey: string
let commercialTextId: string

beforeAll(async () => {
  stack = await startVoiceStack({ env: { LLM_API_KEY: 'platform-llm-key' } })
  ;({ server, llm, workerToken: WORKER_TOKEN } = stack)
  owner = await createTeam(server)
  caller = await createTeam(server)
  ownerKey = await secretKeyFor(server, owner.owner)
  callerKey = await secretKeyFor(server, caller.owner)
  commercialTextId = (
    await makeAgent(server, owner.owner, {
      name: 'Tax Helper',
      mode: 'commercial',
      systemPrompt: 'You are the owner’s secret tax prompt.',
    })
  ).id
})
afterAll(() => stack?.close())
beforeEach(() => llm.reset())

const get = (path: string, key: string) => server.request(path, { headers: { 'x-api-key': key } })

const ledgerOf = async (organizationId: string) =>
  server.ctx.db
    .selectFrom('credit_ledger')
    .select(['kind', 'amount_micros'])
    .where('organization_id', '=', organizationId)
    .where('kind', '<>', 'trial')
    .execute()

describe('a commercial agent used by another organization', () => {
  it('answers the other organization’s chat session, billed to it, with the owner’s prompt', async () => {
    const ownerLedger = await ledgerOf(owner.organizationId)
    const callerLedger = await ledgerOf(caller.organizationId)
    const session = await createChatSession(server, { key: callerKey, agentId: commercialTextId })
    expect(session.agent_name).toBe('Tax Helper')
    llm.queue({ text: ['File by April.'], usage: { input: 1000, output: 500 } })
    const { events } = await sendChat(server, session, 'When do I file?')
    expect(textOf(events)).toBe('File by April.')
    expect(llm.requests.at(-1)?.messages[0]?.content).toContain('secret tax prompt')
    // The caller's organization has no key of its own: the platform's key serves it.
    expect(llm.requestHeaders.at(-1)?.authorization).toBe('Bearer platform-llm-key')

    const callerCharges = (await ledgerOf(caller.organizationId)).slice(callerLedger.length)
    expect(callerCharges.length).toBeGreaterThan(0)
    expect(callerCharges.every((row) => Number(row.amount_micros) < 0)).toBe(true)
    expect(await ledgerOf(owner.organizationId)).toEqual(ownerLedger)

    // The conversation is the caller's: its history answers, and it is stored in its organization.
    expect((await chatCall(server, session, 'history')).status).toBe(200)
    const row = await server.ctx.db
      .selectFrom('conversations')
      .select('organization_id')
      .where('id', '=', session.conversation_id)
      .executeTakeFirstOrThrow()
    expect(row.organization_id).toBe(caller.organizationId)
  })

  it('opens sessions from the caller’s widget key on its allowed domain too', async () => {
    const { key } = await createApiKey(server.ctx, {
      organizationId: caller.organizationId,
      createdBy: caller.owner.userId,
      name: 'shop widget',
      type: 'widget',
      allowedDomains: ['shop.example.test'],
      by: auditBySystem,
    })
    const session = await createChatSession(server, { key, agentId: commercialTextId, origin: SHOP_ORIGIN })
    expect(session.conversation_id).toBeTruthy()
  })

  it('is listed with mode=commercial, but its configuration answers 404 and cannot be changed', async () => {
    const listed = await (await get('/v1/agents?mode=commercial&limit=100', callerKey)).json()
    expect(listed.data).toContainEqual(
      expect.objectContaining({ id: commercialTextId, name: 'Tax Helper', mode: 'commercial' }),
    )
    expect(
      Object.keys(listed.data.find((agent: { id: string }) => agent.id === commercialTextId)).sort(),
    ).toEqual(['active', 'agentArchitecture', 'createdAt', 'id', 'mode', 'name'])
    const all = await (await get('/v1/agents?limit=100', callerKey)).json()
    expect(all.data.map((agent: { id: string }) => agent.id)).not.toContain(commercialTextId)

    expect((await get(`/v1/agents/${commercialTextId}`, callerKey)).status).toBe(404)
    for (const method of ['PATCH', 'PUT']) {
      const response = await server.request(`/v1/agents/${commercialTextId}`, {
        method,
        headers: { 'x-api-key': callerKey },
        json: { name: 'Hijacked' },
      })
      expect(response.status).toBe(404)
    }
    const deleted = await server.request(`/v1/agents/${commercialTextId}`, {
      method: 'DELETE',
      headers: { 'x-api-key': callerKey },
    })
    expect(deleted.status).toBe(404)
    expect((await get(`/v1/agents/${commercialTextId}`, ownerKey)).status).toBe(200)
    expect((await (await get(`/v1/agents/${commercialTextId}`, ownerKey)).json()).data.name).toBe(
      'Tax Helper',
    )
  })

  it('stays 404 when public, private or inactive; an inactive one is not listed', async () => {
    const publicAgent = await makeAgent(server, owner.owner, { mode: 'public' })
    const privateAgent = await makeAgent(server, owner.owner, { mode: 'private' })
    const asleep = await makeAgent(server, owner.owner, { mode: 'commercial', active: false })
    for (const agent of [publicAgent, privateAgent, asleep]) {
      const response = await server.request('/v1/chat/sessions', {
        method: 'POST',
        headers: { 'x-api-key': callerKey },
        json: { agent_id: agent.id },
      })
      expect(response.status).toBe(404)
    }
    const listed = await (await get('/v1/agents?mode=commercial&limit=100', callerKey)).json()
    expect(listed.data.map((agent: { id: string }) => agent.id)).not.toContain(asleep.id)
    // Its owner still sees and may try it.
    const own = await (await get('/v1/agents?mode=commercial&limit=100', ownerKey)).json()
    expect(own.data.map((agent: { id: string }) => agent.id)).toContain(asleep.id)
  })

  it('hands the caller’s conversation only to the owner’s commercial agents', async () => {
    const privateDesk = await makeAgent(server, owner.owner, { name: 'Private Desk', mode: 'private' })
    const publicDesk = await makeAgent(server, owner.owner, { name: 'Billing Desk', mode: 'commercial' })
    const front = await makeAgent(server, owner.owner, {
      name: 'Front Desk',
      mode: 'commercial',
      handoffAgentIds: [privateDesk.id, publicDesk.id],
    })
    const session = await createChatSession(server, { key: callerKey, agentId: front.id })
    llm.queue({ text: ['Hi.'] })
    await sendChat(server, session, 'hello')
    const tools = (llm.requests.at(-1)?.tools ?? []).map((tool) => tool.function.name)
    expect(tools.some((name) => name.includes('billing'))).toBe(true)
    expect(tools.some((name) => name.includes('private'))).toBe(false)
  })

  it('starts the caller’s voice call, served with the caller’s own provider key, not the owner’s', async () => {
    const voice = await makeAgent(server, owner.owner, {
      agentArchitecture: 'pipeline',
      name: 'Phone Helper',
      mode: 'commercial',
    })
    for (const [team, key] of [
      [owner, 'dg-owner-secret'],
      [caller, 'dg-caller-secret'],
    ] as const) {
      const stored = await server.request(`/api/organizations/${team.organizationId}/provider-keys`, {
        method: 'PUT',
        token: team.owner.session.token,
        json: { keys: { deepgram: key } },
      })
      expect(stored.status).toBe(200)
    }
    const session = await startVoiceSession(server, { key: callerKey, agentId: voice.id })
    const call = await server.ctx.db
      .selectFrom('calls')
      .select('organization_id')
      .where('id', '=', session.callId)
      .executeTakeFirstOrThrow()
    expect(call.organization_id).toBe(caller.organizationId)
    const setup = await server.request(`/v1/calls/${session.callId}/setup`, { token: WORKER_TOKEN })
    expect(setup.status).toBe(200)
    const { data } = ZCallSetupResponse.parse(await setup.json())
    expect(data.stt).toMatchObject({ apiKey: 'dg-caller-secret', keySource: 'organization' })
  })
})
