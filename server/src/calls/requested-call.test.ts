import { randomBytes } from 'node:crypto'
import { ZDispatchMetadata } from '@parley/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerPhoneNumber } from '../../test/helpers/batch.ts'
import { setBalanceMicros } from '../../test/helpers/billing.ts'
import { type FakeLiveKit, startFakeLiveKit } from '../../test/helpers/fake-livekit.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { readEvents } from '../../test/helpers/sse.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

const WORKER_TOKEN = randomBytes(24).toString('hex')
let fake: FakeLiveKit
let server: TestServer
let key: string
let otherKey: string
let organizationId: string
let phoneNumberId: string
let otherPhoneNumberId: string
let agentId: string

beforeAll(async () => {
  fake = await startFakeLiveKit()
  server = await startTestServer({ env: { ...fake.env, WORKER_TOKEN } })
  const team = await createTeam(server)
  organizationId = team.organizationId
  key = await secretKeyFor(server, team.owner)
  const agent = await makeAgent(server, team.owner, {
    agentArchitecture: 'pipeline',
    systemPrompt: 'You call {{name}} about {{topic}}.',
  })
  agentId = agent.id
  phoneNumberId = await registerPhoneNumber(server, key, {
    number: '+14155550100',
    outboundAgentId: agent.id,
    sipTrunkId: 'ST_outbound',
  })
  await setBalanceMicros(server, { organizationId, micros: 10_000_000 })
  const other = await createTeam(server)
  otherKey = await secretKeyFor(server, other.owner)
  const otherAgent = await makeAgent(server, other.owner, { agentArchitecture: 'pipeline' })
  otherPhoneNumberId = await registerPhoneNumber(server, otherKey, {
    number: '+14155550199',
    outboundAgentId: otherAgent.id,
    sipTrunkId: 'ST_other',
  })
})
afterAll(async () => {
  fake?.releaseSip()
  await server?.destroy()
  await fake?.close()
})

const placeCall = (json: unknown, init: { token?: string; idempotencyKey?: string } = {}) =>
  server.request('/v1/calls', {
    method: 'POST',
    token: init.token ?? key,
    json,
    ...(init.idempotencyKey ? { headers: { 'idempotency-key': init.idempotencyKey } } : {}),
  })

const countCalls = async () =>
  Number(
    (
      await server.ctx.db
        .selectFrom('calls')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('organization_id', '=', organizationId)
        .executeTakeFirstOrThrow()
    ).n,
  )

const openEvents = (callId: string, lastEventId?: string, token = key) =>
  server.request(`/v1/calls/${callId}/events`, {
    token,
    ...(lastEventId ? { headers: { 'last-event-id': lastEventId } } : {}),
  })

describe('POST /v1/calls', () => {
  it('refuses what a batch contact would be refused, and opens nothing', async () => {
    const before = await countCalls()
    const unknownField = await placeCall({ fromPhoneNumberId: phoneNumberId, to: '+14155550123', extra: 1 })
    expect(unknownField.status).toBe(400)
    expect(JSON.stringify(await unknownField.json())).toContain('extra')

    const badFormat = await placeCall({ fromPhoneNumberId: phoneNumberId, to: '415 555 0123' })
    expect(badFormat.status).toBe(400)

    const impossible = await placeCall({ fromPhoneNumberId: phoneNumberId, to: '+1555' })
    expect(impossible.status).toBe(400)
    expect((await impossible.json()).code).toBe('invalid_phone_number')

    const foreignNumber = await placeCall({ fromPhoneNumberId: otherPhoneNumberId, to: '+14155550123' })
    expect(foreignNumber.status).toBe(404)

    const team = await createTeam(server)
    const textAgent = await makeAgent(server, team.owner, { agentArchitecture: 'text' })
    const notOurs = await placeCall({
      fromPhoneNumberId: phoneNumberId,
      to: '+14155550123',
      agentId: textAgent.id,
    })
    expect(notOurs.status).toBe(404)

    await server.ctx.db.updateTable('agents').set({ active: false }).where('id', '=', agentId).execute()
    const inactive = await placeCall({ fromPhoneNumberId: phoneNumberId, to: '+14155550123' })
    await server.ctx.db.updateTable('agents').set({ active: true }).where('id', '=', agentId).execute()
    expect(inactive.status).toBe(403)
    expect((await inactive.json()).code).toBe('agent_inactive')

    await setBalanceMicros(server, { organizationId, micros: 0 })
    const broke = await placeCall({ fromPhoneNumberId: phoneNumberId, to: '+14155550123' })
    await setBalanceMicros(server, { organizationId, micros: 10_000_000 })
    expect(broke.status).toBe(402)
    expect((await broke.json()).code).toBe('insufficient_credits')

    expect(await countCalls()).toBe(before)
    expect(fake.dialsTo('+14155550123')).toBe(0)
  })

  it('dials now, streams its events with ids, resumes after Last-Event-ID, and hangs up', async () => {
    const to = '+14155550124'
    fake.scriptSip(to, { result: 'answered' })
    const response = await placeCall({
      fromPhoneNumberId: phoneNumberId,
      to,
      variables: { name: 'Ada', topic: 'the renewal' },
      metadata: { crmId: 'c-42' },
    })
    expect(response.status).toBe(201)
    const { data: call } = await response.json()
    expect(call).toMatchObject({
      direction: 'outbound',
      phoneNumber: to,
      agentId,
      status: 'active',
      batchJobId: null,
    })

    const stream = readEvents(await openEvents(call.id), { withIds: true })
    const queued = await stream.next()
    expect(queued).toMatchObject({
      event: 'queued',
      data: { type: 'queued', callId: call.id, data: { metadata: { crmId: 'c-42' }, to } },
    })
    const dialing = await stream.next()
    expect(dialing?.event).toBe('dialing')
    expect(await stream.next()).toMatchObject({ event: 'answered' })
    expect(fake.dialsTo(to)).toBe(1)

    // The dispatch carries the filled prompt, no batch ids.
    const dispatch = fake.callsTo('AgentDispatchService/CreateDispatch').at(-1)
    const metadata = ZDispatchMetadata.parse(JSON.parse(String(dispatch?.body.metadata)))
    expect(metadata.agent.prompt).toBe('You call Ada about the renewal.')
    expect(metadata.batchJobId).toBeUndefined()
    expect(metadata.direction).toBe('outbound')

    const appended = await server.request(`/v1/calls/${call.id}/transcript`, {
      method: 'POST',
      token: WORKER_TOKEN,
      json: { lines: [{ role: 'assistant', content: 'Hello Ada' }] },
    })
    expect(appended.status).toBe(200)
    expect(await stream.next()).toMatchObject({
      event: 'transcript',
      data: { data: { role: 'assistant', content: 'Hello Ada' } },
    })

    // Resume from the dialing event: the events after it, as first sent (same ids).
    const resumed = readEvents(await openEvents(call.id, dialing?.id), { withIds: true })
    const afterDialing = await resumed.next()
    expect(afterDialing?.event).toBe('answered')
    expect(Number(afterDialing?.id)).toBeGreaterThan(Number(dialing?.id))
    expect((await resumed.next())?.event).toBe('transcript')

    const hangup = await server.request(`/v1/calls/${call.id}/hangup`, { method: 'POST', token: key })
    expect(hangup.status).toBe(200)
    expect((await hangup.json()).data).toMatchObject({ status: 'ended', endReason: 'ended_by_request' })
    expect(fake.callsTo('RoomService/DeleteRoom').some((c) => c.body.room === call.roomName)).toBe(true)

    const ended = await stream.next()
    expect(ended).toMatchObject({
      event: 'ended',
      data: { data: { status: 'ended', outcome: 'completed', reason: 'ended_by_request' } },
    })
    expect(await stream.next()).toBeNull()
    expect((await resumed.next())?.event).toBe('ended')
    expect(await resumed.next()).toBeNull()

    const again = await server.request(`/v1/calls/${call.id}/hangup`, { method: 'POST', token: key })
    expect(again.status).toBe(409)
    expect((await again.json()).code).toBe('call_ended')
  })

  it('ends an unanswered call with its outcome and SIP status', async () => {
    const to = '+14155550125'
    fake.scriptSip(to, { result: 'busy' })
    const { data: call } = await (await placeCall({ fromPhoneNumberId: phoneNumberId, to })).json()
    const stream = readEvents(await openEvents(call.id))
    const seen: Array<{ event: string; data: unknown }> = []
    for (let event = await stream.next(); event; event = await stream.next()) seen.push(event)
    expect(seen.map((event) => event.event)).toEqual(['queued', 'dialing', 'ended'])
    expect(seen.at(-1)?.data).toMatchObject({ data: { status: 'failed', outcome: 'busy', sipStatus: 486 } })
  })

  it('stores the outcome and SIP status of busy, declined and unanswered dials on the call', async () => {
    const cases = [
      { to: '+14155550130', result: 'busy', outcome: 'busy', sipStatus: 486 },
      { to: '+14155550131', result: 'declined', outcome: 'rejected', sipStatus: 603 },
      { to: '+14155550132', result: 'timeout', outcome: 'no_answer', sipStatus: 408 },
    ] as const
    for (const { to, result, outcome, sipStatus } of cases) {
      fake.scriptSip(to, { result })
      const { data: call } = await (await placeCall({ fromPhoneNumberId: phoneNumberId, to })).json()
      const stream = readEvents(await openEvents(call.id))
      let ended: { event: string; data: unknown } | null = null
      for (let event = await stream.next(); event; event = await stream.next()) ended = event
      expect(ended).toMatchObject({
        event: 'ended',
        data: { data: { status: 'failed', outcome, sipStatus } },
      })
      const record = await (await server.request(`/v1/calls/${call.id}`, { token: key })).json()
      expect(record.data).toMatchObject({
        status: 'failed',
        outcome,
        sipStatus,
        amdVerdict: null,
        costUsd: 0,
      })
      const listed = await (await server.request(`/v1/calls?outcome=${outcome}`, { token: key })).json()
      expect(listed.data.map((c: { id: string }) => c.id)).toContain(call.id)
      expect(listed.data.every((c: { outcome: string }) => c.outcome === outcome)).toBe(true)
    }
  })

  it('places one call per Idempotency-Key', async () => {
    const to = '+14155550126'
    fake.scriptSip(to, { result: 'answered' })
    const body = { fromPhoneNumberId: phoneNumberId, to }
    const first = await placeCall(body, { idempotencyKey: 'call-once-1' })
    const second = await placeCall(body, { idempotencyKey: 'call-once-1' })
    expect(first.status).toBe(201)
    expect(second.status).toBe(201)
    const [a, b] = [await first.json(), await second.json()]
    expect(b.data.id).toBe(a.data.id)
    const stream = readEvents(await openEvents(a.data.id))
    for (let event = await stream.next(); event && event.event !== 'answered'; event = await stream.next()) {}
    expect(fake.dialsTo(to)).toBe(1)
    await server.request(`/v1/calls/${a.data.id}/hangup`, { method: 'POST', token: key })
  })

  it("answers 404 for another organization's call", async () => {
    const to = '+14155550127'
    fake.scriptSip(to, { result: 'busy' })
    const { data: call } = await (await placeCall({ fromPhoneNumberId: phoneNumberId, to })).json()
    expect((await openEvents(call.id, undefined, otherKey)).status).toBe(404)
    expect(
      (await server.request(`/v1/calls/${call.id}/hangup`, { method: 'POST', token: otherKey })).status,
    ).toBe(404)
    expect((await server.request(`/v1/calls/${call.id}`, { token: otherKey })).status).toBe(404)
  })
})
