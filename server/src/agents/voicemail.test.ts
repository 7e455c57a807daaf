import { randomBytes } from 'node:crypto'
import { ZDispatchMetadata } from '@parley/shared'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { registerPhoneNumber } from '../../test/helpers/batch.ts'
import { setBalanceMicros } from '../../test/helpers/billing.ts'
import { type FakeLiveKit, startFakeLiveKit } from '../../test/helpers/fake-livekit.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

/**
 * An agent's voicemail setting: what its outbound calls do when answering-machine detection (the
 * worker's) hears a voicemail box or a phone menu. Stored, answered in both vocabularies,
 * versioned, checked strictly, and sent to the worker with the message's placeholders filled.
 */

const WORKER_TOKEN = randomBytes(24).toString('hex')
let fake: FakeLiveKit
let server: TestServer
let team: Awaited<ReturnType<typeof createTeam>>
let key: string

beforeAll(async () => {
  fake = await startFakeLiveKit()
  server = await startTestServer({ env: { ...fake.env, WORKER_TOKEN } })
  team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
  await setBalanceMicros(server, { organizationId: team.organizationId, micros: 10_000_000 })
})
afterAll(async () => {
  await server?.destroy()
  await fake?.close()
})

const DEFAULT = { action: 'hang_up', message: null, onPhoneMenu: 'navigate' }
const LEAVE = {
  action: 'leave_message',
  message: 'Hi {{name}}, this is Parley about {{topic}}. Please call us back.',
  onPhoneMenu: 'hang_up',
}

const getAgent = async (agentId: string) =>
  (await (await server.request(`/v1/agents/${agentId}`, { token: key })).json()).data

describe('voicemail on an agent', () => {
  it('defaults to hanging up on a voicemail and navigating a menu; a set one is stored and versioned', async () => {
    const plain = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
    expect((await getAgent(plain.id)).voicemail).toEqual(DEFAULT)

    const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline', voicemail: LEAVE })
    expect((await getAgent(agent.id)).voicemail).toEqual(LEAVE)
    const version = await (await server.request(`/v1/agents/${agent.id}/versions/1`, { token: key })).json()
    expect(version.data.settings.voicemail).toEqual(LEAVE)

    // onPhoneMenu may be left out; an empty message is none.
    const patched = await server.request(`/v1/agents/${agent.id}`, {
      method: 'PATCH',
      token: key,
      json: { voicemail: { action: 'hang_up', message: '' } },
    })
    expect(patched.status).toBe(200)
    expect((await getAgent(agent.id)).voicemail).toEqual(DEFAULT)

    // A text agent has no phone line: the setting stays the default.
    const text = await makeAgent(server, team.owner, { agentArchitecture: 'text', voicemail: LEAVE })
    expect((await getAgent(text.id)).voicemail).toEqual(DEFAULT)
  })

  it('refuses a message missing or too long, an unknown action or field, naming it, and changes nothing', async () => {
    const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline', voicemail: LEAVE })
    const refusals = [
      { action: 'leave_message' },
      { action: 'leave_message', message: '   ' },
      { action: 'leave_message', message: 'x'.repeat(1001) },
      { action: 'voicemail' },
      { action: 'hang_up', onPhoneMenu: 'press_0' },
      { action: 'hang_up', extra: true },
      { message: 'Call us back.' },
      'hang_up',
    ]
    for (const voicemail of refusals) {
      const response = await server.request(`/v1/agents/${agent.id}`, {
        method: 'PATCH',
        token: key,
        json: { voicemail },
      })
      expect(response.status, JSON.stringify(voicemail)).toBe(400)
      expect(JSON.stringify(await response.json())).toMatch(/voicemail/)
    }
    expect((await getAgent(agent.id)).voicemail).toEqual(LEAVE)
  })

  it('PUT takes it in the studio vocabulary', async () => {
    const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
    const response = await server.request(`/v1/agents/${agent.id}`, {
      method: 'PUT',
      token: key,
      json: { voicemail: { action: 'leave_message', message: 'Call us back.', onPhoneMenu: 'navigate' } },
    })
    expect(response.status).toBe(200)
    expect((await getAgent(agent.id)).voicemail).toEqual({
      action: 'leave_message',
      message: 'Call us back.',
      onPhoneMenu: 'navigate',
    })
  })

  it('goes to the worker with a dialled call, the message filled from its variables', async () => {
    const agent = await makeAgent(server, team.owner, {
      agentArchitecture: 'pipeline',
      voicemail: LEAVE,
    })
    const phoneNumberId = await registerPhoneNumber(server, key, {
      number: '+14155550100',
      outboundAgentId: agent.id,
      sipTrunkId: 'ST_outbound',
    })
    const to = '+14155550124'
    fake.scriptSip(to, { result: 'answered' })
    const response = await server.request('/v1/calls', {
      method: 'POST',
      token: key,
      json: { fromPhoneNumberId: phoneNumberId, to, variables: { name: 'Ada', topic: 'the renewal' } },
    })
    expect(response.status).toBe(201)
    const { data: call } = await response.json()
    // The dial is answered, then the agent is dispatched to the call's room.
    const dispatch = await vi.waitFor(
      () => {
        const found = fake
          .callsTo('AgentDispatchService/CreateDispatch')
          .find((request) => String(request.body.metadata).includes(call.id))
        expect(found).toBeDefined()
        return found
      },
      { timeout: 15_000 },
    )
    const metadata = ZDispatchMetadata.parse(JSON.parse(String(dispatch?.body.metadata)))
    expect(metadata.direction).toBe('outbound')
    expect(metadata.agent.voicemail).toEqual({
      ...LEAVE,
      message: 'Hi Ada, this is Parley about the renewal. Please call us back.',
    })
  })
})
