import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type FakeLiveKit, postLiveKitWebhook, startFakeLiveKit } from '../../test/helpers/fake-livekit.ts'
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { backdateCall, findCallOfRoom, ledgerOfCall, startVoiceSession } from '../../test/helpers/voice.ts'
import { isSignedForAgent } from '../../test/helpers/webhooks.ts'
import { priceCall } from '../calls/pricing.ts'

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
  server = await startTestServer({ env: { ...fake.env, OUTBOUND_ALLOW_HOSTS: receiver.hostAndPort } })
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

  it('starts billing when the user joins; a session nobody joined costs nothing', async () => {
    const agent = await voiceAgentWithWebhook()
    const joined = await startVoiceSession(server, { key, agentId: agent.id })
    const event = (name: string, roomName: string, identity: string, kind: string) => ({
      event: name,
      room: { sid: 'RM_x', name: roomName },
      participant: { sid: 'PA_x', identity, kind },
    })
    const before = await findCallOfRoom(server, joined.room_name)
    expect(before.started_at.getTime()).toBe(before.created_at.getTime())
    // The agent joining first starts nothing; the user does; a reconnect does not move it again.
    await postLiveKitWebhook(
      server.url,
      fake,
      event('participant_joined', joined.room_name, 'agent', 'AGENT'),
    )
    expect((await findCallOfRoom(server, joined.room_name)).started_at).toEqual(before.started_at)
    await postLiveKitWebhook(
      server.url,
      fake,
      event('participant_joined', joined.room_name, team.owner.userId, 'STANDARD'),
    )
    const connected = await findCallOfRoom(server, joined.room_name)
    expect(connected.started_at.getTime()).toBeGreaterThan(before.created_at.getTime())
    await postLiveKitWebhook(
      server.url,
      fake,
      event('participant_joined', joined.room_name, team.owner.userId, 'STANDARD'),
    )
    expect((await findCallOfRoom(server, joined.room_name)).started_at).toEqual(connected.started_at)

    const unjoined = await startVoiceSession(server, { key, agentId: agent.id })
    // LiveKit closes the empty room after its time-out: no minutes billed.
    await server.ctx.db
      .updateTable('calls')
      .set({
        created_at: sql`now() - interval '130 seconds'`,
        started_at: sql`now() - interval '130 seconds'`,
      })
      .where('room_name', '=', unjoined.room_name)
      .execute()
    await postLiveKitWebhook(server.url, fake, roomFinished(unjoined.room_name))
    const closed = await findCallOfRoom(server, unjoined.room_name)
    expect(closed.status).toBe('ended')
    expect(closed.duration_seconds).toBeGreaterThanOrEqual(130)
    expect(Number(closed.cost_micros)).toBe(0)
    expect(await ledgerOfCall(server, unjoined.callId)).toEqual([])
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
