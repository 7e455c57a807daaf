import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { registerPhoneNumber } from '../../test/helpers/batch.ts'
import { setBalanceMicros } from '../../test/helpers/billing.ts'
import { type FakeLiveKit, startFakeLiveKit } from '../../test/helpers/fake-livekit.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { readEvents } from '../../test/helpers/sse.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { startVoiceSession } from '../../test/helpers/voice.ts'

// POST /v1/calls/{callId}/sip-status: the worker's view of the callee's sip.callStatus becomes
// the call's dialing, ringing and answered events, once each and in order.
const WORKER_TOKEN = randomBytes(24).toString('hex')
let fake: FakeLiveKit
let server: TestServer
let key: string
let agentId: string
let phoneNumberId: string

beforeAll(async () => {
  fake = await startFakeLiveKit()
  server = await startTestServer({ env: { ...fake.env, WORKER_TOKEN } })
  const team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
  const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
  agentId = agent.id
  phoneNumberId = await registerPhoneNumber(server, key, {
    number: '+14155550100',
    outboundAgentId: agent.id,
    sipTrunkId: 'ST_outbound',
  })
  await setBalanceMicros(server, { organizationId: team.organizationId, micros: 10_000_000 })
}, 180_000)
afterAll(async () => {
  fake?.releaseSip()
  await server?.destroy()
  await fake?.close()
})

const report = (callId: string, json: unknown, token = WORKER_TOKEN) =>
  server.request(`/v1/calls/${callId}/sip-status`, { method: 'POST', token, json })

const recorded = async (callId: string, status: string) => {
  const response = await report(callId, { status })
  expect(response.status).toBe(200)
  return ((await response.json()) as { data: { recorded: string | null } }).data.recorded
}

const typesOf = async (callId: string) =>
  (
    await server.ctx.db
      .selectFrom('call_events')
      .select('type')
      .where('call_id', '=', callId)
      .orderBy('id')
      .execute()
  ).map((row) => row.type)

describe('POST /v1/calls/{callId}/sip-status', () => {
  it('records ringing and the answer once each, in order, and nothing after the end', async () => {
    const to = '+14155550150'
    // The phone rings until the test lets the dial answer.
    fake.scriptSip(to, { result: 'answered', hold: true })
    const placed = await server.request('/v1/calls', {
      method: 'POST',
      token: key,
      json: { fromPhoneNumberId: phoneNumberId, to },
    })
    expect(placed.status).toBe(201)
    const { id: callId } = (await placed.json()).data as { id: string }
    const stream = readEvents(await server.request(`/v1/calls/${callId}/events`, { token: key }))
    expect((await stream.next())?.event).toBe('queued')
    expect((await stream.next())?.event).toBe('dialing')
    await vi.waitFor(() => expect(fake.dialsTo(to)).toBe(1))

    // Only the worker may report, with exactly this body.
    expect((await report(callId, { status: 'ringing' }, key)).status).toBe(401)
    const extra = await report(callId, { status: 'ringing', at: 1 })
    expect(extra.status).toBe(400)
    expect(JSON.stringify(await extra.json())).toContain('at')
    expect((await report(callId, { status: 'hangup' })).status).toBe(400)
    expect((await report(callId, {})).status).toBe(400)
    expect((await report('call_unknown', { status: 'ringing' })).status).toBe(404)

    // The server's own dialing is there already: the worker's adds nothing.
    expect(await recorded(callId, 'dialing')).toBeNull()
    expect(await recorded(callId, 'ringing')).toBe('ringing')
    expect(await recorded(callId, 'ringing')).toBeNull()
    expect(await recorded(callId, 'dialing')).toBeNull()
    expect(await stream.next()).toMatchObject({ event: 'ringing', data: { type: 'ringing', callId } })

    expect(await recorded(callId, 'active')).toBe('answered')
    expect(await recorded(callId, 'ringing')).toBeNull()
    expect(await recorded(callId, 'active')).toBeNull()
    expect((await stream.next())?.event).toBe('answered')

    // The dial's own answer comes after the worker's: still one answered event.
    fake.releaseSip()
    await vi.waitFor(async () =>
      expect(
        (
          await server.ctx.db
            .selectFrom('calls')
            .select('person_joined_at')
            .where('id', '=', callId)
            .executeTakeFirstOrThrow()
        ).person_joined_at,
      ).not.toBeNull(),
    )
    const hangup = await server.request(`/v1/calls/${callId}/hangup`, { method: 'POST', token: key })
    expect(hangup.status).toBe(200)
    expect((await stream.next())?.event).toBe('ended')
    expect(await stream.next()).toBeNull()
    expect(await recorded(callId, 'active')).toBeNull()
    expect(await typesOf(callId)).toEqual(['queued', 'dialing', 'ringing', 'answered', 'ended'])
  })

  it('records an answer the worker saw before any ringing, and never ringing after it', async () => {
    const to = '+14155550151'
    fake.scriptSip(to, { result: 'answered', hold: true })
    const placed = await server.request('/v1/calls', {
      method: 'POST',
      token: key,
      json: { fromPhoneNumberId: phoneNumberId, to },
    })
    const { id: callId } = (await placed.json()).data as { id: string }
    await vi.waitFor(() => expect(fake.dialsTo(to)).toBe(1))
    expect(await recorded(callId, 'active')).toBe('answered')
    expect(await recorded(callId, 'ringing')).toBeNull()
    fake.releaseSip()
    await server.request(`/v1/calls/${callId}/hangup`, { method: 'POST', token: key })
    expect(await typesOf(callId)).toEqual(['queued', 'dialing', 'answered', 'ended'])
  })

  it('refuses a web call, which has no SIP callee', async () => {
    const session = await startVoiceSession(server, { key, agentId })
    const response = await report(session.callId, { status: 'ringing' })
    expect(response.status).toBe(400)
    expect(await typesOf(session.callId)).toEqual([])
  })
})
