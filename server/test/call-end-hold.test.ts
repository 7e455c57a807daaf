import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { CALL_END_RELEASE_JOB, releaseHeldCallEnd } from '../src/calls/close.ts'
import { registerPhoneNumber } from './helpers/batch.ts'
import { setBalanceMicros } from './helpers/billing.ts'
import { type FakeLiveKit, postLiveKitWebhook, startFakeLiveKit } from './helpers/fake-livekit.ts'
import { type HttpTarget, startHttpTarget } from './helpers/http-target.ts'
import { createTeam, makeAgent, secretKeyFor } from './helpers/organization.ts'
import { readEvents, type SseEvent } from './helpers/sse.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

// The `ended` event and call.ended of a phone call a LiveKit webhook closed while its agent worker
// was in it wait for the worker's end (which may refine the outcome), then go out once. The grace
// period is long here: the release job runs only when a test asks for it.
const WORKER_TOKEN = randomBytes(24).toString('hex')
let fake: FakeLiveKit
let receiver: HttpTarget
let server: TestServer
let key: string
let phoneNumberId: string

beforeAll(async () => {
  fake = await startFakeLiveKit()
  receiver = await startHttpTarget((_request, response) => response.writeHead(200).end('ok'))
  server = await startTestServer({
    env: {
      ...fake.env,
      WORKER_TOKEN,
      CALL_END_GRACE_SECONDS: '600',
      OUTBOUND_ALLOW_HOSTS: receiver.hostAndPort,
    },
  })
  const team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
  const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
  // Agents take https URLs only; the receiver is a plain-HTTP test server on the outbound allow-list.
  await server.ctx.db
    .updateTable('agents')
    .set({ webhook_url: `${receiver.origin}/hooks` })
    .where('id', '=', agent.id)
    .execute()
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
  await receiver?.close()
  await fake?.close()
})

type Call = { id: string; roomName: string }

const openEvents = async (callId: string) =>
  readEvents(await server.request(`/v1/calls/${callId}/events`, { token: key }))

/** Places a call the fake answers and reads its stream up to `answered`. */
const answeredCall = async (to: string) => {
  fake.scriptSip(to, { result: 'answered' })
  const response = await server.request('/v1/calls', {
    method: 'POST',
    token: key,
    json: { fromPhoneNumberId: phoneNumberId, to },
  })
  expect(response.status).toBe(201)
  const call = (await response.json()).data as Call
  const stream = await openEvents(call.id)
  const seen: string[] = []
  for (let event = await stream.next(); event; event = await stream.next()) {
    seen.push(event.event)
    if (event.event === 'answered') break
  }
  expect(seen).toEqual(['queued', 'dialing', 'answered'])
  return { call, stream }
}

const webhook = async (event: Record<string, unknown>) => {
  const response = await postLiveKitWebhook(server.url, fake, event)
  expect(response.ok).toBe(true)
}

const agentJoins = (call: Call) =>
  webhook({
    event: 'participant_joined',
    room: { sid: 'RM_x', name: call.roomName },
    participant: { sid: `PA_agent_${call.id}`, identity: 'agent', kind: 'AGENT' },
  })

/** The callee hangs up: LiveKit's participant_left of the SIP participant closes the call. */
const calleeLeaves = (call: Call) =>
  webhook({
    event: 'participant_left',
    room: { sid: 'RM_x', name: call.roomName },
    participant: { sid: `PA_sip_${call.id}`, identity: `contact-${call.id}`, kind: 'SIP' },
  })

const workerEnds = async (callId: string, json: Record<string, unknown>) => {
  const response = await server.request(`/v1/calls/${callId}/end`, {
    method: 'POST',
    token: WORKER_TOKEN,
    json,
  })
  expect(response.status).toBe(200)
  return (await response.json()).data as { ended: boolean }
}

const endedEventsOf = (callId: string) =>
  server.ctx.db
    .selectFrom('call_events')
    .select('data')
    .where('call_id', '=', callId)
    .where('type', '=', 'ended')
    .execute()

/** The call.ended deliveries queued for a call (one row each, whatever their attempts). */
const callEndedDeliveries = async (callId: string) =>
  (
    await server.ctx.db
      .selectFrom('webhook_deliveries')
      .select('payload')
      .where('event', '=', 'call.ended')
      .execute()
  )
    .map((row) => row.payload as { data?: Record<string, unknown> } & Record<string, unknown>)
    .map((payload) => (payload.data ?? payload) as Record<string, unknown>)
    .filter((data) => data.call_id === callId)

/** The call.ended requests the agent's endpoint received for a call. */
const receivedCallEnded = (callId: string) =>
  receiver.received
    .map((request) => JSON.parse(request.body) as { event: string; data: Record<string, unknown> })
    .filter((payload) => payload.event === 'call.ended' && payload.data.call_id === callId)

/** The queued release jobs of a call's held end. */
const releaseJobsOf = async (callId: string) =>
  (
    await sql<{ next_run_at: Date }>`select next_run_at from agenda_jobs
      where name = ${CALL_END_RELEASE_JOB} and data->>'callId' = ${callId}`.execute(server.ctx.db)
  ).rows

const nextEvent = async (stream: { next: () => Promise<SseEvent | null> }) => stream.next()

describe('the ended event of a call a webhook closed while its worker was in it', () => {
  it('waits for the worker’s voicemail end: one ended event and one call.ended, both voicemail_left', async () => {
    const { call, stream } = await answeredCall('+14155550140')
    await agentJoins(call)
    await calleeLeaves(call)
    // Closed and billed at once, as `completed` so far; nothing ended is sent yet.
    const record = await (await server.request(`/v1/calls/${call.id}`, { token: key })).json()
    expect(record.data).toMatchObject({
      status: 'ended',
      outcome: 'completed',
      endReason: 'participant_left',
    })
    expect(await endedEventsOf(call.id)).toEqual([])
    expect(await callEndedDeliveries(call.id)).toEqual([])
    // The release job waits in the queue for the grace period.
    expect(await releaseJobsOf(call.id)).toHaveLength(1)

    // A stream opened now waits for the ended event rather than closing on the closed call.
    const late = await openEvents(call.id)
    expect((await late.next())?.event).toBe('queued')
    expect((await late.next())?.event).toBe('dialing')
    expect((await late.next())?.event).toBe('answered')

    expect(await workerEnds(call.id, { reason: 'voicemail_left', amdVerdict: 'voicemail' })).toEqual({
      ended: false,
    })
    for (const reader of [stream, late]) {
      expect(await nextEvent(reader)).toMatchObject({
        event: 'ended',
        data: {
          type: 'ended',
          data: { status: 'ended', outcome: 'voicemail_left', amdVerdict: 'voicemail' },
        },
      })
      expect(await reader.next()).toBeNull()
    }
    await vi.waitFor(() => expect(receivedCallEnded(call.id)).toHaveLength(1), { timeout: 15_000 })
    expect(receivedCallEnded(call.id)[0]?.data).toMatchObject({
      outcome: 'voicemail_left',
      amd_verdict: 'voicemail',
      reason: 'voicemail_left',
    })

    // The worker's retry, the room's last webhook and the release job add nothing.
    await workerEnds(call.id, { reason: 'voicemail_left', amdVerdict: 'voicemail' })
    await webhook({ event: 'room_finished', room: { sid: 'RM_x', name: call.roomName } })
    expect(await releaseHeldCallEnd(server.ctx, call.id)).toBeNull()
    expect(await endedEventsOf(call.id)).toHaveLength(1)
    expect(await callEndedDeliveries(call.id)).toHaveLength(1)
  })

  it('ends a call no worker took at once', async () => {
    const { call, stream } = await answeredCall('+14155550141')
    await webhook({ event: 'room_finished', room: { sid: 'RM_x', name: call.roomName } })
    // Written in the closing transaction: there when the webhook is answered.
    expect((await endedEventsOf(call.id)).map((row) => row.data)).toMatchObject([{ outcome: 'completed' }])
    expect(await callEndedDeliveries(call.id)).toHaveLength(1)
    expect(await stream.next()).toMatchObject({ event: 'ended', data: { data: { outcome: 'completed' } } })
    expect(await stream.next()).toBeNull()
  })

  it('sends the close’s outcome when the worker ends without a verdict, or when the grace period passes', async () => {
    const plain = await answeredCall('+14155550142')
    await agentJoins(plain.call)
    await calleeLeaves(plain.call)
    expect(await endedEventsOf(plain.call.id)).toEqual([])
    await workerEnds(plain.call.id, { reason: 'agent_ended' })
    expect(await plain.stream.next()).toMatchObject({
      event: 'ended',
      data: { data: { outcome: 'completed', reason: 'participant_left' } },
    })
    expect(await callEndedDeliveries(plain.call.id)).toHaveLength(1)

    const silent = await answeredCall('+14155550143')
    await agentJoins(silent.call)
    await calleeLeaves(silent.call)
    expect(await endedEventsOf(silent.call.id)).toEqual([])
    // The worker never says: the release job (here run now rather than after the grace period).
    const [job] = await releaseJobsOf(silent.call.id)
    expect(job?.next_run_at.getTime()).toBeGreaterThan(Date.now() + 500_000)
    await server.ctx.jobs.now(CALL_END_RELEASE_JOB, { callId: silent.call.id })
    expect(await silent.stream.next()).toMatchObject({
      event: 'ended',
      data: { data: { outcome: 'completed' } },
    })
    expect(await silent.stream.next()).toBeNull()
    // The job queues call.ended after the event's commit.
    await vi.waitFor(async () => expect(await callEndedDeliveries(silent.call.id)).toHaveLength(1))
    // A worker's end after that refines the record only: what was sent stays sent.
    await workerEnds(silent.call.id, { reason: 'voicemail_hung_up', amdVerdict: 'voicemail' })
    const record = await (await server.request(`/v1/calls/${silent.call.id}`, { token: key })).json()
    expect(record.data).toMatchObject({ outcome: 'voicemail_hung_up' })
    expect(await endedEventsOf(silent.call.id)).toHaveLength(1)
    expect(await callEndedDeliveries(silent.call.id)).toHaveLength(1)
  })
})
