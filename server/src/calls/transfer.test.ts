import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { registerPhoneNumber } from '../../test/helpers/batch.ts'
import { attemptsOf, createBatchJob, setUpBatchTenant } from '../../test/helpers/batch-dialer.ts'
import { type FakeLiveKit, startFakeLiveKit } from '../../test/helpers/fake-livekit.ts'
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { startVoiceSession } from '../../test/helpers/voice.ts'
import { isSignedForAgent } from '../../test/helpers/webhooks.ts'

/**
 * Transfers to a person: the agent's transferDestinations setting, and the worker's
 * POST /v1/calls/{callId}/transfer against the suite's fake LiveKit (the real SipClient: SIP REFER
 * through TransferSIPParticipant, dial-in through CreateSIPParticipant), with the call record and
 * the signed call.transferred webhook.
 */

const WORKER_TOKEN = randomBytes(24).toString('hex')
let fake: FakeLiveKit
let receiver: HttpTarget
let server: TestServer
let team: Awaited<ReturnType<typeof createTeam>>
let key: string

beforeAll(async () => {
  fake = await startFakeLiveKit()
  receiver = await startHttpTarget((_request, response) => {
    response.writeHead(200)
    response.end('ok')
  })
  server = await startTestServer({
    env: { ...fake.env, WORKER_TOKEN, OUTBOUND_ALLOW_HOSTS: receiver.hostAndPort },
  })
  team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
  await registerPhoneNumber(server, key, {
    number: '+14155550100',
    label: 'Main line',
    sipTrunkId: 'ST_main',
  })
})
afterAll(async () => {
  await server?.destroy()
  await receiver?.close()
  await fake?.close()
})

const SALES = {
  name: 'Sales',
  destination: '+14155550199',
  whenToUse: 'The caller wants to buy',
  mode: 'cold',
}
const DESK = {
  name: 'Front desk',
  destination: 'sip:desk@pbx.example.com',
  whenToUse: 'Anything else',
  mode: 'warm',
}

/** A voice agent with transfer destinations whose webhook reaches the receiver. */
const transferringAgent = async (member = team.owner, destinations: unknown[] = [SALES, DESK]) => {
  const agent = await makeAgent(server, member, {
    agentArchitecture: 'pipeline',
    transferDestinations: destinations,
  })
  // Agents take https URLs only; the receiver is a plain-HTTP test server on the outbound allow-list.
  await server.ctx.db
    .updateTable('agents')
    .set({ webhook_url: `${receiver.origin}/hooks/${agent.id}` })
    .where('id', '=', agent.id)
    .execute()
  return agent
}

const transfer = (callId: string, json: unknown, token = WORKER_TOKEN) =>
  server.request(`/v1/calls/${callId}/transfer`, { method: 'POST', json, token })

const deliveriesTo = (agentId: string) =>
  receiver.received
    .filter((request) => request.url === `/hooks/${agentId}`)
    .map((request) => ({
      request,
      body: JSON.parse(request.body) as { event: string; data: Record<string, unknown> },
    }))
    .filter(({ body }) => body.event === 'call.transferred')

/** Deliveries go through the job queue: under a loaded machine they take a while. */
const SOON = { timeout: 15_000 }

const callDetail = async (callId: string, apiKey = key) =>
  server.request(`/v1/calls/${callId}`, { token: apiKey })

describe('transferDestinations on an agent', () => {
  it('are stored, answered, versioned and sent to the worker without the numbers', async () => {
    const agent = await transferringAgent()
    const got = await (await server.request(`/v1/agents/${agent.id}`, { token: key })).json()
    expect(got.data.transferDestinations).toEqual([SALES, DESK])
    const versions = await (await server.request(`/v1/agents/${agent.id}/versions/1`, { token: key })).json()
    expect(versions.data.settings.transferDestinations).toEqual([SALES, DESK])

    const session = await startVoiceSession(server, { key, agentId: agent.id })
    const dispatch = fake.callsTo('AgentDispatchService/CreateDispatch').at(-1)
    const metadata = JSON.parse(String(dispatch?.body.metadata))
    expect(metadata.callId).toBe(session.callId)
    expect(metadata.agent.transferDestinations).toEqual([
      { name: 'Sales', whenToUse: 'The caller wants to buy', mode: 'cold' },
      { name: 'Front desk', whenToUse: 'Anything else', mode: 'warm' },
    ])
    expect(String(dispatch?.body.metadata)).not.toContain('+14155550199')
  })

  it('refuses more than 10, a bad destination, a repeated name or an unknown field, naming it', async () => {
    const agent = await transferringAgent()
    const patch = (transferDestinations: unknown) =>
      server.request(`/v1/agents/${agent.id}`, {
        method: 'PATCH',
        token: key,
        json: { transferDestinations },
      })
    const eleven = Array.from({ length: 11 }, (_, index) => ({ ...SALES, name: `Desk ${index}` }))
    const refusals = [
      eleven,
      [{ ...SALES, destination: '0300 1234567' }],
      [{ ...SALES, destination: 'http://example.com' }],
      [SALES, { ...DESK, name: 'sales' }],
      [{ ...SALES, mode: 'lukewarm' }],
      [{ ...SALES, extra: true }],
      [{ name: 'Sales', destination: '+14155550199', mode: 'cold' }],
    ]
    for (const body of refusals) {
      const response = await patch(body)
      expect(response.status, JSON.stringify(body)).toBe(400)
      const error = await response.json()
      expect(error.issues?.[0]?.field ?? error.error).toMatch(/transferDestinations/)
    }
    const unchanged = await (await server.request(`/v1/agents/${agent.id}`, { token: key })).json()
    expect(unchanged.data.transferDestinations).toEqual([SALES, DESK])

    const text = await makeAgent(server, team.owner, { transferDestinations: [SALES] })
    expect(text.transferDestinations).toEqual([])
  })
})

describe('POST /v1/calls/{callId}/transfer', () => {
  it('cold, web caller: dials the person into the room on the organization’s line, records it and sends a signed call.transferred', async () => {
    const agent = await transferringAgent()
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    const response = await transfer(session.callId, { destination: 'sales' })
    expect(response.status).toBe(200)
    const { data } = await response.json()
    expect(data.line).toBeNull()
    expect(data.transfer).toMatchObject({
      agentId: agent.id,
      destinationName: 'Sales',
      destination: '+14155550199',
      mode: 'cold',
      method: 'dial',
      status: 'transferred',
      sipStatus: null,
      finishedAt: expect.any(String),
    })
    const dial = fake.callsTo('SIP/CreateSIPParticipant').at(-1)
    expect(dial?.body).toMatchObject({
      sipTrunkId: 'ST_main',
      sipCallTo: '+14155550199',
      roomName: session.room_name,
      participantIdentity: `transfer-${data.transfer.id}`,
    })

    const detail = await (await callDetail(session.callId)).json()
    expect(detail.data.status).toBe('active')
    expect(detail.data.transfers).toEqual([data.transfer])

    await vi.waitFor(() => expect(deliveriesTo(agent.id)).toHaveLength(1), SOON)
    const [delivery] = deliveriesTo(agent.id)
    expect(delivery?.body.data).toEqual({
      call_id: session.callId,
      transfer_id: data.transfer.id,
      agent_id: agent.id,
      agent_name: agent.name,
      direction: 'web',
      destination_name: 'Sales',
      destination: '+14155550199',
      mode: 'cold',
      method: 'dial',
      result: 'transferred',
      sip_status: null,
      transferred_at: data.transfer.finishedAt,
    })
    expect(
      await isSignedForAgent(
        server,
        { organizationId: team.organizationId, agentId: agent.id },
        delivery?.request,
      ),
    ).toBe(true)
  })

  it('cold, a person who does not answer: recorded with the SIP status, the call goes on', async () => {
    const agent = await transferringAgent(team.owner, [{ ...SALES, destination: '+14155550177' }])
    fake.scriptSip('+14155550177', { result: 'no_answer' })
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    const { data } = await (await transfer(session.callId, { destination: 'Sales' })).json()
    expect(data.transfer).toMatchObject({ status: 'no_answer', sipStatus: 480, method: 'dial' })
    const detail = await (await callDetail(session.callId)).json()
    expect(detail.data.status).toBe('active')
    await vi.waitFor(
      () =>
        expect(deliveriesTo(agent.id)[0]?.body.data).toMatchObject({ result: 'no_answer', sip_status: 480 }),
      SOON,
    )
  })

  it('cold, phone caller: SIP REFER of the callee’s participant, then the call closes as transferred', async () => {
    const tenant = await setUpBatchTenant(server, { number: '+14155550111' })
    const referAgent = await transferringAgent(tenant.team.owner, [
      SALES,
      { ...DESK, name: 'Support line', mode: 'cold' },
    ])
    await server.ctx.db
      .updateTable('phone_numbers')
      .set({ outbound_agent_id: referAgent.id })
      .where('id', '=', tenant.phoneNumberId)
      .execute()
    const batchJobId = await createBatchJob(
      server,
      { ...tenant, agent: referAgent },
      {
        contacts: [{ phone: '+14155550123', name: 'Ada' }],
      },
    )
    const attempt = await vi.waitFor(
      async () => {
        const [first] = await attemptsOf(server, batchJobId)
        if (first?.outcome !== 'answered' || !first.callId) throw new Error('not answered yet')
        return first
      },
      { timeout: 15_000 },
    )
    const callId = attempt.callId as string
    const call = await server.ctx.db
      .selectFrom('calls')
      .selectAll()
      .where('id', '=', callId)
      .executeTakeFirstOrThrow()

    fake.scriptTransfer('sip:desk@pbx.example.com', 'busy')
    const busy = await (await transfer(callId, { destination: 'Support line' })).json()
    expect(busy.data.transfer).toMatchObject({ method: 'refer', status: 'no_answer', sipStatus: 486 })

    const response = await transfer(callId, { destination: 'Sales' })
    expect(response.status).toBe(200)
    const { data } = await response.json()
    expect(data.transfer).toMatchObject({ method: 'refer', status: 'transferred', mode: 'cold' })
    expect(fake.transfers().slice(-2)).toEqual([
      {
        roomName: call.room_name,
        participantIdentity: `contact-${call.batch_contact_id}`,
        transferTo: 'sip:desk@pbx.example.com',
      },
      {
        roomName: call.room_name,
        participantIdentity: `contact-${call.batch_contact_id}`,
        transferTo: 'tel:+14155550199',
      },
    ])
    const closed = await server.ctx.db
      .selectFrom('calls')
      .selectAll()
      .where('id', '=', callId)
      .executeTakeFirstOrThrow()
    expect([closed.status, closed.end_reason]).toEqual(['ended', 'transferred'])
    expect(fake.rooms.has(call.room_name)).toBe(false)
    // The call is over: another transfer is refused.
    expect((await transfer(callId, { destination: 'Sales' })).status).toBe(409)
    // One webhook per attempt; deliveries run as jobs, so they may arrive in either order.
    await vi.waitFor(
      () =>
        expect(
          deliveriesTo(referAgent.id)
            .map(({ body }) => `${body.data.method} ${body.data.result}`)
            .sort(),
        ).toEqual(['refer no_answer', 'refer transferred']),
      SOON,
    )
  })

  it('warm: answers the line and records dialing; the worker’s result is recorded once and sent once', async () => {
    const agent = await transferringAgent()
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    const started = await (await transfer(session.callId, { destination: 'Front desk' })).json()
    expect(started.data.line).toEqual({
      sipTrunkId: 'ST_main',
      fromNumber: '+14155550100',
      to: 'sip:desk@pbx.example.com',
      ringingTimeoutSeconds: 30,
    })
    expect(started.data.transfer).toMatchObject({
      mode: 'warm',
      method: 'dial',
      status: 'dialing',
      finishedAt: null,
    })
    // The worker dials the person itself (WarmTransferTask): the server dialled nothing.
    expect(fake.dialsTo('sip:desk@pbx.example.com')).toBe(0)

    const report = { destination: 'Front desk', transferId: started.data.transfer.id, result: 'declined' }
    const reported = await (await transfer(session.callId, report)).json()
    expect(reported.data.transfer).toMatchObject({ status: 'declined', finishedAt: expect.any(String) })
    const again = await (await transfer(session.callId, { ...report, result: 'transferred' })).json()
    expect(again.data.transfer.status).toBe('declined')
    await vi.waitFor(() => expect(deliveriesTo(agent.id)).toHaveLength(1), SOON)
    expect(deliveriesTo(agent.id)[0]?.body.data).toMatchObject({ mode: 'warm', result: 'declined' })
    const detail = await (await callDetail(session.callId)).json()
    expect(detail.data.transfers.map((item: { status: string }) => item.status)).toEqual(['declined'])
  })

  it('refuses bad input with a 4xx and changes nothing; another organization’s call answers 404', async () => {
    const agent = await transferringAgent()
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    const unknownName = await transfer(session.callId, { destination: 'Nobody' })
    expect(unknownName.status).toBe(400)
    expect((await unknownName.json()).code).toBe('invalid_transfer_destination')
    const refused = [
      { destination: 'Sales', extra: 1 },
      {},
      { destination: '' },
      { destination: 'Front desk', transferId: 'x' },
      { destination: 'Front desk', result: 'transferred' },
      { destination: 'Front desk', transferId: 'x', result: 'maybe' },
    ]
    for (const body of refused)
      expect((await transfer(session.callId, body)).status, JSON.stringify(body)).toBe(400)
    expect(
      (await transfer(session.callId, { destination: 'Front desk', transferId: 'nope', result: 'failed' }))
        .status,
    ).toBe(404)
    expect((await transfer('no-such-call', { destination: 'Sales' })).status).toBe(404)
    expect((await transfer(session.callId, { destination: 'Sales' }, 'not-the-worker-token')).status).toBe(
      401,
    )
    const detail = await (await callDetail(session.callId)).json()
    expect(detail.data.transfers).toEqual([])

    const other = await createTeam(server)
    const otherKey = await secretKeyFor(server, other.owner)
    expect((await callDetail(session.callId, otherKey)).status).toBe(404)
    // An organization without a phone number has no line to dial a transfer on.
    const lineless = await transferringAgent(other.owner)
    const otherSession = await startVoiceSession(server, { key: otherKey, agentId: lineless.id })
    const noLine = await transfer(otherSession.callId, { destination: 'Sales' })
    expect(noLine.status).toBe(409)
    expect((await noLine.json()).code).toBe('no_transfer_line')
  })
})
