import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type FakeLiveKit, postLiveKitWebhook, startFakeLiveKit } from '../../test/helpers/fake-livekit.ts'
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import {
  backdateCall,
  findCallOfRoom,
  ledgerOfCall,
  participantEvent,
  startVoiceSession,
} from '../../test/helpers/voice.ts'
import { isSignedForAgent } from '../../test/helpers/webhooks.ts'
import { endCallsWithoutAgent } from '../calls/jobs.ts'
import { priceCall } from '../calls/pricing.ts'

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
    env: {
      ...fake.env,
      WORKER_TOKEN,
      OPENAI_API_KEY: 'sk-platform-test',
      OUTBOUND_ALLOW_HOSTS: receiver.hostAndPort,
    },
  })
  team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
})
afterAll(async () => {
  await server?.destroy()
  await receiver?.close()
  await fake?.close()
})

const voiceAgentWithWebhook = async () => {
  const agent = await makeAgent(server, team.owner, { agentArchitecture: 'realtime', name: 'Hook Agent' })
  // Agents take https URLs only; the receiver is a plain-HTTP test server on the outbound allow-list.
  await server.ctx.db
    .updateTable('agents')
    .set({ webhook_url: `${receiver.origin}/hooks/${agent.id}` })
    .where('id', '=', agent.id)
    .execute()
  return agent
}

const roomFinished = (roomName: string) => ({ event: 'room_finished', room: { sid: 'RM_x', name: roomName } })

describe('POST /livekit/webhook', () => {
  it('refuses a forged signature and a missing one with 401, closing nothing', async () => {
    const agent = await voiceAgentWithWebhook()
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    const forged = await postLiveKitWebhook(server.url, fake, roomFinished(session.room_name), {
      secret: 'not-the-secret-not-the-secret-00',
    })
    expect(forged.status).toBe(401)
    expect(await forged.json()).toMatchObject({ success: false, code: 'invalid_signature' })
    const unsigned = await fetch(`${server.url}/livekit/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/webhook+json' },
      body: JSON.stringify(roomFinished(session.room_name)),
    })
    expect(unsigned.status).toBe(401)
    expect((await findCallOfRoom(server, session.room_name)).status).toBe('active')
  })

  it('closes the call on room_finished and bills it once however many arrive; call.ended is signed', async () => {
    const agent = await voiceAgentWithWebhook()
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    await backdateCall(server, session.room_name, 125)
    const responses = await Promise.all(
      [1, 2, 3].map(() => postLiveKitWebhook(server.url, fake, roomFinished(session.room_name))),
    )
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200])
    expect(await postLiveKitWebhook(server.url, fake, roomFinished(session.room_name))).toHaveProperty(
      'status',
      200,
    )

    const call = await findCallOfRoom(server, session.room_name)
    expect(call).toMatchObject({ status: 'ended', end_reason: 'room_finished' })
    expect(Number(call.cost_micros)).toBe(priceCall('realtime', call.duration_seconds ?? 0))
    const ledger = await ledgerOfCall(server, session.callId)
    expect(ledger.map((row) => Number(row.amount))).toEqual([-Number(call.cost_micros)])

    const deliveries = () => receiver.received.filter((request) => request.body.includes(session.callId))
    await vi.waitFor(() => expect(deliveries()).toHaveLength(1), { timeout: 15_000 })
    const delivery = deliveries()[0]
    expect(
      await isSignedForAgent(server, { organizationId: team.organizationId, agentId: agent.id }, delivery),
    ).toBe(true)
    expect(delivery?.headers['x-parley-event']).toBe('call.ended')
    expect(JSON.parse(delivery?.body ?? '{}').data).toMatchObject({
      call_id: session.callId,
      reason: 'room_finished',
      duration: call.duration_seconds,
      total_cost: Number(call.cost_micros) / 1_000_000,
    })
  })

  it('closes the call when the user leaves (and removes the room), not when the agent leaves', async () => {
    const agent = await voiceAgentWithWebhook()
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    const left = (identity: string, kind: string) => ({
      event: 'participant_left',
      room: { sid: 'RM_x', name: session.room_name },
      participant: { sid: 'PA_x', identity, kind },
    })
    expect((await postLiveKitWebhook(server.url, fake, left('agent-1', 'AGENT'))).status).toBe(200)
    expect((await findCallOfRoom(server, session.room_name)).status).toBe('active')
    expect((await postLiveKitWebhook(server.url, fake, left(team.owner.userId, 'STANDARD'))).status).toBe(200)
    expect(await findCallOfRoom(server, session.room_name)).toMatchObject({
      status: 'ended',
      end_reason: 'participant_left',
    })
    expect(fake.callsTo('RoomService/DeleteRoom').map((call) => call.body.room)).toContain(session.room_name)
    expect(fake.rooms.has(session.room_name)).toBe(false)
  })

  const post = (event: Record<string, unknown>) => postLiveKitWebhook(server.url, fake, event)
  const personJoined = (roomName: string) =>
    post(participantEvent('participant_joined', { roomName, identity: team.owner.userId, kind: 'STANDARD' }))
  const agent = (event: 'participant_joined' | 'participant_left', roomName: string, sid = 'PA_agent1') =>
    post(participantEvent(event, { roomName, identity: `agent-${sid}`, kind: 'AGENT', sid }))
  /** Moves the running billed interval back, as if `seconds` passed. */
  const age = (roomName: string, seconds: number) =>
    server.ctx.db
      .updateTable('calls')
      .set({ billing_since: sql`billing_since - make_interval(secs => ${seconds})` })
      .where('room_name', '=', roomName)
      .execute()

  it('bills only from the later of the two joins: the person’s and the agent’s', async () => {
    const hook = await voiceAgentWithWebhook()
    const agentFirst = await startVoiceSession(server, { key, agentId: hook.id })
    const before = await findCallOfRoom(server, agentFirst.room_name)
    expect(before.started_at.getTime()).toBe(before.created_at.getTime())
    // The agent alone in the room: nobody is talking to anyone yet.
    await agent('participant_joined', agentFirst.room_name)
    expect(await findCallOfRoom(server, agentFirst.room_name)).toMatchObject({
      billing_since: null,
      started_at: before.started_at,
    })
    await personJoined(agentFirst.room_name)
    const connected = await findCallOfRoom(server, agentFirst.room_name)
    expect(connected.billing_since).not.toBeNull()
    expect(connected.started_at.getTime()).toBeGreaterThan(before.created_at.getTime())
    // A reconnect moves nothing.
    await personJoined(agentFirst.room_name)
    expect(await findCallOfRoom(server, agentFirst.room_name)).toMatchObject({
      billing_since: connected.billing_since,
      started_at: connected.started_at,
    })

    // The person first: the clock waits for the agent.
    const personFirst = await startVoiceSession(server, { key, agentId: hook.id })
    await personJoined(personFirst.room_name)
    expect((await findCallOfRoom(server, personFirst.room_name)).billing_since).toBeNull()
    await agent('participant_joined', personFirst.room_name)
    expect((await findCallOfRoom(server, personFirst.room_name)).billing_since).not.toBeNull()
    await age(personFirst.room_name, 42)
    await post(roomFinished(personFirst.room_name))
    const closed = await findCallOfRoom(server, personFirst.room_name)
    const billed = Math.ceil(
      ((closed.ended_at as Date).getTime() - (closed.billing_since as Date).getTime()) / 1000,
    )
    expect(billed).toBeGreaterThanOrEqual(42)
    expect(Number(closed.cost_micros)).toBe(priceCall('realtime', billed))
  })

  it('stops the clock while the agent is away and starts it again when an agent rejoins', async () => {
    const hook = await voiceAgentWithWebhook()
    const session = await startVoiceSession(server, { key, agentId: hook.id })
    const room = session.room_name
    await agent('participant_joined', room, 'PA_first')
    await personJoined(room)
    await age(room, 60)
    // The agent's process died: its participant left. Its leave, delivered twice, counts once.
    await agent('participant_left', room, 'PA_first')
    await agent('participant_left', room, 'PA_first')
    const paused = await findCallOfRoom(server, room)
    expect(paused).toMatchObject({ status: 'active', billing_since: null, agent_participant_sid: null })
    expect([priceCall('realtime', 60), priceCall('realtime', 61)]).toContain(Number(paused.accrued_micros))

    // Another worker took over; the first one's leave arriving late changes nothing.
    await agent('participant_joined', room, 'PA_second')
    await agent('participant_left', room, 'PA_first')
    const resumed = await findCallOfRoom(server, room)
    expect(resumed).toMatchObject({
      agent_participant_sid: 'PA_second',
      accrued_micros: paused.accrued_micros,
    })
    expect(resumed.billing_since).not.toBeNull()
    await age(room, 30)
    await post(
      participantEvent('participant_left', { roomName: room, identity: team.owner.userId, kind: 'STANDARD' }),
    )
    const closed = await findCallOfRoom(server, room)
    const second = Math.ceil(
      ((closed.ended_at as Date).getTime() - (closed.billing_since as Date).getTime()) / 1000,
    )
    expect(Number(closed.cost_micros)).toBe(Number(paused.accrued_micros) + priceCall('realtime', second))
  })

  it('costs nothing when nobody joined before LiveKit closed the empty room', async () => {
    const hook = await voiceAgentWithWebhook()
    const unjoined = await startVoiceSession(server, { key, agentId: hook.id })
    // A worker took it (so the agent-join deadline does not apply), but nobody came.
    await server.ctx.db
      .updateTable('calls')
      .set({
        created_at: sql`now() - interval '130 seconds'`,
        started_at: sql`now() - interval '130 seconds'`,
        agent_taken_at: sql`now()`,
      })
      .where('room_name', '=', unjoined.room_name)
      .execute()
    await post(roomFinished(unjoined.room_name))
    const closed = await findCallOfRoom(server, unjoined.room_name)
    expect(closed.status).toBe('ended')
    expect(closed.duration_seconds).toBeGreaterThanOrEqual(130)
    expect(Number(closed.cost_micros)).toBe(0)
    expect(await ledgerOfCall(server, unjoined.callId)).toEqual([])
  })

  it('ends a call no agent took within the bound: agent_unavailable, unbilled, room deleted', async () => {
    const hook = await voiceAgentWithWebhook()
    const abandoned = await startVoiceSession(server, { key, agentId: hook.id })
    const taken = await startVoiceSession(server, { key, agentId: hook.id })
    // The person is there; no worker ever took the first call. A worker asked for the second's setup.
    await personJoined(abandoned.room_name)
    const setup = await server.request(`/v1/calls/${taken.callId}/setup`, { token: WORKER_TOKEN })
    expect(setup.status).toBe(200)
    await server.ctx.db
      .updateTable('calls')
      .set({ created_at: sql`now() - interval '20 seconds'` })
      .where('room_name', 'in', [abandoned.room_name, taken.room_name])
      .execute()

    // The repeating agent check (every fifth of AGENT_JOIN_TIMEOUT_SECONDS) finds it.
    await vi.waitFor(
      async () => expect((await findCallOfRoom(server, abandoned.room_name)).status).toBe('failed'),
      { timeout: 15_000, interval: 100 },
    )
    const closed = await findCallOfRoom(server, abandoned.room_name)
    expect(closed).toMatchObject({ end_reason: 'agent_unavailable', billing_since: null })
    expect(Number(closed.cost_micros)).toBe(0)
    expect(await ledgerOfCall(server, abandoned.callId)).toEqual([])
    expect(fake.rooms.has(abandoned.room_name)).toBe(false)
    expect(fake.callsTo('RoomService/DeleteRoom').map((call) => call.body.room)).toContain(
      abandoned.room_name,
    )
    const deliveries = () => receiver.received.filter((request) => request.body.includes(abandoned.callId))
    await vi.waitFor(() => expect(deliveries()).toHaveLength(1), { timeout: 15_000 })
    expect(JSON.parse(deliveries()[0]?.body ?? '{}').data).toMatchObject({
      call_id: abandoned.callId,
      status: 'failed',
      reason: 'agent_unavailable',
      total_cost: 0,
    })

    // The call a worker took is left alone, however old.
    await endCallsWithoutAgent(server.ctx)
    expect((await findCallOfRoom(server, taken.room_name)).status).toBe('active')
  })

  it('is listed in the OpenAPI document', async () => {
    const document = (await (await server.request('/v1/openapi.json')).json()) as {
      paths: Record<string, unknown>
    }
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/livekit/webhook',
        '/v1/chat/voice-sessions',
        '/v1/calls',
        '/v1/calls/{callId}',
      ]),
    )
  })
})
