import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { setBalanceMicros } from '../../test/helpers/billing.ts'
import { type FakeLiveKit, startFakeLiveKit } from '../../test/helpers/fake-livekit.ts'
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { backdateCall, findCallOfRoom, startVoiceSession } from '../../test/helpers/voice.ts'
import { getBalanceMicros } from '../billing/service.ts'

let fake: FakeLiveKit
let receiver: HttpTarget
let server: TestServer

beforeAll(async () => {
  fake = await startFakeLiveKit()
  receiver = await startHttpTarget((_request, response) => {
    response.writeHead(200)
    response.end('ok')
  })
  server = await startTestServer({
    env: { ...fake.env, OUTBOUND_ALLOW_HOSTS: receiver.hostAndPort, CALL_CHECK_INTERVAL_SECONDS: '1' },
  })
})
afterAll(async () => {
  await server?.destroy()
  await receiver?.close()
  await fake?.close()
})

const teamWithVoiceAgent = async () => {
  const team = await createTeam(server)
  const key = await secretKeyFor(server, team.owner)
  const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
  await server.ctx.db
    .updateTable('agents')
    .set({ webhook_url: `${receiver.origin}/hooks/${agent.id}` })
    .where('id', '=', agent.id)
    .execute()
  return { team, key, agent }
}

const statusOf = async (roomName: string) => {
  const call = await findCallOfRoom(server, roomName)
  return [call.status, call.end_reason]
}

describe('the call sweeper (repeating job)', () => {
  it('closes an active call whose room vanished without a webhook, and leaves live rooms alone', async () => {
    const { key, agent } = await teamWithVoiceAgent()
    const orphan = await startVoiceSession(server, { key, agentId: agent.id })
    const live = await startVoiceSession(server, { key, agentId: agent.id })
    // Both past the sweeper's grace for new rooms; only one room is gone from LiveKit.
    await backdateCall(server, live.room_name, 120)
    await backdateCall(server, orphan.room_name, 120)
    fake.vanishRoom(orphan.room_name)
    await vi.waitFor(
      async () => expect(await statusOf(orphan.room_name)).toEqual(['ended', 'room_vanished']),
      {
        timeout: 20_000,
        interval: 200,
      },
    )
    // The same sweep listed both rooms and found the live one.
    expect(await statusOf(live.room_name)).toEqual(['active', null])
    const listed = fake.callsTo('RoomService/ListRooms').map((call) => call.body.names as string[])
    expect(listed.some((names) => names.includes(orphan.room_name) && names.includes(live.room_name))).toBe(
      true,
    )
  })
})

describe('the credit re-check (repeating job)', () => {
  it('ends a running call through DeleteRoom when its organization runs out, with a final call.ended', async () => {
    const { team, key, agent } = await teamWithVoiceAgent()
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    await backdateCall(server, session.room_name, 30)
    await setBalanceMicros(server, {
      organizationId: team.organizationId,
      micros: 0,
      reason: 'test: out of credits',
    })
    // The job closes the call, then deletes its room: wait for both.
    await vi.waitFor(
      async () => {
        expect(await statusOf(session.room_name)).toEqual(['ended', 'insufficient_credits'])
        expect(fake.callsTo('RoomService/DeleteRoom').map((call) => call.body.room)).toContain(
          session.room_name,
        )
      },
      { timeout: 20_000, interval: 200 },
    )
    expect(fake.rooms.has(session.room_name)).toBe(false)
    const deliveries = () => receiver.received.filter((request) => request.body.includes(session.callId))
    await vi.waitFor(() => expect(deliveries()).toHaveLength(1), { timeout: 15_000 })
    expect(JSON.parse(deliveries()[0]?.body ?? '{}')).toMatchObject({
      event: 'call.ended',
      data: { call_id: session.callId, reason: 'insufficient_credits' },
    })
    // The call happened: its whole cost is charged, past the empty balance (no usage is dropped).
    const [call] = await server.ctx.db
      .selectFrom('calls')
      .select('cost_micros')
      .where('room_name', '=', session.room_name)
      .execute()
    expect(Number(call?.cost_micros)).toBeGreaterThan(0)
    expect(await getBalanceMicros(server.ctx.db, team.organizationId)).toBe(-Number(call?.cost_micros))
  })
})
