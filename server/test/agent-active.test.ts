import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey } from './helpers/accounts.ts'
import { createBatchJson, createBatchTenant, registerPhoneNumber } from './helpers/batch.ts'
import { makeAgent } from './helpers/organization.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/**
 * `active: false` (every agent's state at creation) keeps an agent off the public paths: widget
 * keys, phone numbers and batch jobs answer 403 agent_inactive; secret keys and the studio may try it.
 */
let server: TestServer
let tenant: Awaited<ReturnType<typeof createBatchTenant>>
let widgetKey: string
const origin = 'https://shop.example'

beforeAll(async () => {
  server = await startTestServer()
  tenant = await createBatchTenant(server)
  widgetKey = (
    await createKey(server, tenant.team.owner.session.token, {
      type: 'widget',
      allowedDomains: ['shop.example'],
    })
  ).key
})
afterAll(async () => {
  await server.destroy()
})

const expectInactive = async (response: Response) => {
  expect(response.status).toBe(403)
  expect(((await response.json()) as { code: string }).code).toBe('agent_inactive')
}

const setActive = (agentId: string, active: boolean) =>
  server.request(`/v1/agents/${agentId}`, { method: 'PATCH', token: tenant.key, json: { active } })

describe('an inactive agent', () => {
  it('refuses widget-key chat and voice sessions, and takes secret-key and studio sessions', async () => {
    const text = await makeAgent(server, tenant.team.owner, { active: false })
    const voice = await makeAgent(server, tenant.team.owner, { agentArchitecture: 'pipeline', active: false })
    const chat = (headers: Record<string, string>) =>
      server.request('/v1/chat/sessions', { method: 'POST', headers, json: { agent_id: text.id } })
    await expectInactive(await chat({ 'x-api-key': widgetKey, origin }))
    await expectInactive(
      await server.request('/v1/chat/voice-sessions', {
        method: 'POST',
        headers: { 'x-api-key': widgetKey, origin },
        json: { agent_id: voice.id },
      }),
    )
    expect((await chat({ 'x-api-key': tenant.key })).status).toBe(200)
    expect((await chat({ 'x-studio-token': tenant.team.owner.session.token })).status).toBe(200)

    expect((await setActive(text.id, true)).status).toBe(200)
    expect((await chat({ 'x-api-key': widgetKey, origin })).status).toBe(200)
  })

  it('cannot be given a phone number, and a batch job refuses a number whose agent went inactive', async () => {
    const voice = await makeAgent(server, tenant.team.owner, { agentArchitecture: 'pipeline', active: false })
    await expectInactive(
      await server.request('/v1/phone-numbers', {
        method: 'POST',
        token: tenant.key,
        json: { number: '+14155550177', outboundAgentId: voice.id, sipTrunkId: 'ST_test' },
      }),
    )
    const phoneNumberId = await registerPhoneNumber(server, tenant.key, {
      number: '+14155550178',
      outboundAgentId: tenant.agent.id,
      sipTrunkId: 'ST_test',
    })
    expect((await setActive(tenant.agent.id, false)).status).toBe(200)
    await expectInactive(
      await createBatchJson(server, tenant.key, {
        fromPhoneNumberId: phoneNumberId,
        name: 'Inactive',
        contacts: [{ phone: '+14155552671' }],
      }),
    )
    expect((await setActive(tenant.agent.id, true)).status).toBe(200)
    const started = await createBatchJson(server, tenant.key, {
      fromPhoneNumberId: phoneNumberId,
      name: 'Active',
      contacts: [{ phone: '+14155552671' }],
    })
    expect(started.status).toBe(201)
  })
})
