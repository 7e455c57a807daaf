import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setBalanceMicros } from '../../test/helpers/billing.ts'
import { type FakeLiveKit, startFakeLiveKit } from '../../test/helpers/fake-livekit.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

/**
 * Inbound calls on the server: a caller rings a number with an inbound agent (the fake LiveKit
 * routes it through the trunk and dispatch rule Parley made), the worker opens the call
 * (POST /v1/calls/inbound) and gets its dispatch metadata, or a refusal without credits or with an
 * agent offline; the call is a call record like others (listed by direction, another
 * organization's 404), and a cold transfer of the caller is a SIP REFER with its event.
 */

const WORKER_TOKEN = randomBytes(24).toString('hex')
let livekit: FakeLiveKit
let server: TestServer

beforeAll(async () => {
  livekit = await startFakeLiveKit()
  server = await startTestServer({ env: { ...livekit.env, WORKER_TOKEN } })
})
afterAll(async () => {
  await server?.destroy()
  await livekit?.close()
})

const tenant = async (number: string, agentFields: Record<string, unknown> = {}) => {
  const team = await createTeam(server)
  const key = await secretKeyFor(server, team.owner)
  const agent = await makeAgent(server, team.owner, {
    agentArchitecture: 'pipeline',
    systemPrompt: 'You answer the phone. The caller is {{caller_number}}.',
    ...agentFields,
  })
  const created = await server.request('/v1/phone-numbers', {
    method: 'POST',
    token: key,
    json: { number, sipTrunkId: 'ST_out', inboundAgentId: agent.id },
  })
  expect(created.status).toBe(201)
  const phoneNumber = (await created.json()).data
  return { team, key, agent, phoneNumber }
}

/** What the worker sends once the caller LiveKit put in the room is there. */
const openFor = (number: string, caller: string) => {
  const ring = livekit.ringInbound(number, caller)
  const job = JSON.parse(ring.jobMetadata) as { kind: string; phoneNumberId: string }
  return {
    ring,
    body: {
      phoneNumberId: job.phoneNumberId,
      roomName: ring.roomName,
      callerNumber: ring.participant.attributes['sip.phoneNumber'],
      calledNumber: ring.participant.attributes['sip.trunkPhoneNumber'],
      sipParticipantIdentity: ring.participant.identity,
      agentParticipantSid: 'PA_agent1',
    },
  }
}

const open = (body: unknown, token = WORKER_TOKEN) =>
  server.request('/v1/calls/inbound', { method: 'POST', token, json: body })

const eventsOf = async (callId: string) =>
  (
    await server.ctx.db
      .selectFrom('call_events')
      .select(['type', 'data'])
      .where('call_id', '=', callId)
      .orderBy('id')
      .execute()
  ).map((row) => ({ type: row.type, data: row.data }))

describe('POST /v1/calls/inbound (the worker)', { timeout: 60_000 }, () => {
  it('opens the call record, holds credits, fills {{caller_number}} and answers the same call again', async () => {
    const { key, agent, phoneNumber } = await tenant('+14155550200', {
      transferDestinations: [
        { name: 'Sales', destination: '+14155550299', whenToUse: 'To buy', mode: 'cold' },
      ],
    })
    const { ring, body } = openFor('+14155550200', '+14155550777')
    expect(ring.jobMetadata).toBe(JSON.stringify({ kind: 'inbound', phoneNumberId: phoneNumber.id }))

    const response = await open(body)
    expect(response.status).toBe(200)
    const { data } = await response.json()
    expect(data).toMatchObject({
      accepted: true,
      dispatch: {
        direction: 'inbound',
        roomName: ring.roomName,
        sipParticipantIdentity: 'sip_+14155550777',
        callerNumber: '+14155550777',
        calledNumber: '+14155550200',
        agent: { id: agent.id, prompt: 'You answer the phone. The caller is +14155550777.' },
      },
    })
    expect(data.dispatch.callId).toBe(data.callId)

    // The same room again (a retried request): the same call, no second hold.
    const again = await (await open(body)).json()
    expect(again.data.callId).toBe(data.callId)
    const holds = await server.ctx.db
      .selectFrom('credit_holds')
      .select('id')
      .where('reference', '=', data.callId)
      .execute()
    expect(holds).toHaveLength(1)

    const call = (await (await server.request(`/v1/calls/${data.callId}`, { token: key })).json()).data
    expect(call).toMatchObject({
      direction: 'inbound',
      status: 'active',
      phoneNumber: '+14155550777',
      calledNumber: '+14155550200',
      agentId: agent.id,
    })
    // Both the caller and the worker are in the room: the billing clock runs.
    const row = await server.ctx.db
      .selectFrom('calls')
      .select(['billing_since', 'person_joined_at'])
      .where('id', '=', data.callId)
      .executeTakeFirstOrThrow()
    expect(row.billing_since).not.toBeNull()

    const listed = await (await server.request('/v1/calls?direction=inbound', { token: key })).json()
    expect(listed.data.map((item: { id: string }) => item.id)).toEqual([data.callId])

    // A cold transfer hands the phone caller over by SIP REFER; the stream says so, then ends.
    const transfer = await server.request(`/v1/calls/${data.callId}/transfer`, {
      method: 'POST',
      token: WORKER_TOKEN,
      json: { destination: 'Sales' },
    })
    expect(transfer.status).toBe(200)
    expect((await transfer.json()).data.transfer).toMatchObject({ method: 'refer', status: 'transferred' })
    expect(livekit.transfers().at(-1)).toEqual({
      roomName: ring.roomName,
      participantIdentity: 'sip_+14155550777',
      transferTo: 'tel:+14155550299',
    })
    const types = (await eventsOf(data.callId)).map((event) => event.type)
    expect(types).toEqual(['answered', 'transferred', 'ended'])
  })

  it('refuses cleanly without credits and with the agent offline, recording a failed call', async () => {
    const { team, key } = await tenant('+14155550210')
    await setBalanceMicros(server, { organizationId: team.organizationId, micros: 0 })
    const poor = await (await open(openFor('+14155550210', '+14155550778').body)).json()
    expect(poor.data).toMatchObject({
      accepted: false,
      reason: 'insufficient_credits',
      message: expect.stringContaining('Sorry'),
    })
    const failed = (await (await server.request(`/v1/calls/${poor.data.callId}`, { token: key })).json()).data
    expect(failed).toMatchObject({ status: 'failed', endReason: 'insufficient_credits', costUsd: 0 })

    const offline = await tenant('+14155550211')
    await server.ctx.db
      .updateTable('agents')
      .set({ active: false })
      .where('id', '=', offline.agent.id)
      .execute()
    const refused = await (await open(openFor('+14155550211', '+14155550779').body)).json()
    expect(refused.data).toMatchObject({ accepted: false, reason: 'agent_unavailable' })
  })

  it('keeps inbound calls to their organization, and the route to the worker', async () => {
    const mine = await tenant('+14155550220')
    const { body } = openFor('+14155550220', '+14155550780')
    expect((await open(body, mine.key)).status).toBe(401)
    const opened = await (await open(body)).json()
    const other = await createTeam(server)
    const otherKey = await secretKeyFor(server, other.owner)
    expect((await server.request(`/v1/calls/${opened.data.callId}`, { token: otherKey })).status).toBe(404)
    const theirs = await (await server.request('/v1/calls?direction=inbound', { token: otherKey })).json()
    expect(theirs.data).toEqual([])
    // An unknown number, or a room that is not an inbound one, changes nothing.
    expect((await open({ ...body, phoneNumberId: 'nope', roomName: `${body.roomName}-x` })).status).toBe(404)
    expect((await open({ ...body, roomName: 'agent_x' })).status).toBe(400)
    expect((await open({ ...body, extra: true })).status).toBe(400)
  })
})

describe('a phone caller’s memory', { timeout: 60_000 }, () => {
  it('keeps what a call said in the caller number’s memory, and the next call from it starts with that', async () => {
    const { key } = await tenant('+14155550300')
    const caller = '+14155550888'
    const first = (await (await open(openFor('+14155550300', caller).body)).json()).data
    expect(first.dispatch.agent.prompt).not.toContain('remember')
    const said = await server.request(`/v1/calls/${first.callId}/transcript`, {
      method: 'POST',
      token: WORKER_TOKEN,
      json: {
        lines: [
          { role: 'user', content: 'I am allergic to peanuts, please note it.' },
          { role: 'assistant', content: 'Noted, no peanuts.' },
        ],
      },
    })
    expect(said.status).toBe(200)
    const ended = await server.request(`/v1/calls/${first.callId}/end`, {
      method: 'POST',
      token: WORKER_TOKEN,
      json: { reason: 'agent_ended' },
    })
    expect(ended.status).toBe(200)
    const summaryOf = async (identity: string) =>
      (
        await server.ctx.db
          .selectFrom('memory_summaries')
          .select('summary')
          .where('identity', '=', identity)
          .executeTakeFirst()
      )?.summary ?? ''
    await expect.poll(() => summaryOf(`user:${caller}`), { timeout: 20_000 }).toContain('peanuts')

    // The same number calls again: the agent's prompt carries what it said (the worker's call
    // setup reads the same identity: voice-memory.test.ts).
    const second = (await (await open(openFor('+14155550300', caller).body)).json()).data
    expect(second.callId).not.toBe(first.callId)
    expect(second.dispatch.agent.prompt).toContain('User: I am allergic to peanuts, please note it.')

    // Another number is a stranger; the call record shows nothing of the memory to the API.
    const other = (await (await open(openFor('+14155550300', '+14155550999').body)).json()).data
    expect(other.dispatch.agent.prompt).not.toContain('peanuts')
    const call = await server.request(`/v1/calls/${second.callId}`, { token: key })
    expect(call.status).toBe(200)
  })
})
