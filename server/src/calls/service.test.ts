import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { setBalanceMicros } from '../../test/helpers/billing.ts'
import { type FakeLiveKit, startFakeLiveKit } from '../../test/helpers/fake-livekit.ts'
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts'
import { createTeam, makeAgent } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { backdateCall } from '../../test/helpers/voice.ts'
import { isSignedForAgent } from '../../test/helpers/webhooks.ts'
import { getBalanceMicros } from '../billing/service.ts'
import { estimateCallMicros, priceCall } from './pricing.ts'
import { type CallRow, closeCall, onCallClosed, openCall } from './service.ts'

let fake: FakeLiveKit
let receiver: HttpTarget
let server: TestServer
let team: Awaited<ReturnType<typeof createTeam>>

beforeAll(async () => {
  fake = await startFakeLiveKit()
  receiver = await startHttpTarget((_request, response) => {
    response.writeHead(200)
    response.end('ok')
  })
  server = await startTestServer({ env: { ...fake.env, OUTBOUND_ALLOW_HOSTS: receiver.hostAndPort } })
  team = await createTeam(server)
})
afterAll(async () => {
  await server?.destroy()
  await receiver?.close()
  await fake?.close()
})

const voiceAgent = async (architecture: 'pipeline' | 'realtime') => {
  const agent = await makeAgent(server, team.owner, { agentArchitecture: architecture })
  // Agents take https URLs only; the receiver is a plain-HTTP test server on the outbound allow-list.
  await server.ctx.db
    .updateTable('agents')
    .set({ webhook_url: `${receiver.origin}/hooks/${agent.id}` })
    .where('id', '=', agent.id)
    .execute()
  return agent
}

/**
 * Half a second off the whole-second boundary: the duration is rounded up in SQL from the
 * database's microseconds, the billed time from the milliseconds a JavaScript Date keeps, and a
 * close less than a millisecond past a whole second would otherwise round them apart.
 */
const backdate = (roomName: string, seconds: number) => backdateCall(server, roomName, seconds + 0.5)

const ledgerOf = (callId: string) =>
  server.ctx.db
    .selectFrom('credit_ledger')
    .select(['amount_micros as amount', 'reason'])
    .where('reference', '=', callId)
    .execute()

describe('voice prices', () => {
  it('bills per second at 0.0175 (pipeline) and 0.035 (realtime) USD a minute, rounded up', () => {
    expect(priceCall('pipeline', 60)).toBe(17_500)
    expect(priceCall('realtime', 60)).toBe(35_000)
    expect(priceCall('pipeline', 1)).toBe(292)
    expect(priceCall('pipeline', 0)).toBe(0)
    // The spec's batch estimates: about 0.035 and 0.07 USD per call.
    expect([estimateCallMicros('pipeline'), estimateCallMicros('realtime')]).toEqual([35_000, 70_000])
  })
})

describe('closing a call', () => {
  it('bills once, however many closers race, tells listeners once and sends a signed call.ended', async () => {
    const agent = await voiceAgent('pipeline')
    const closedCalls: CallRow[] = []
    const unsubscribe = onCallClosed(server.ctx, (call) => void closedCalls.push(call))
    const roomName = `agent_${agent.id}_${team.owner.userId}_1`
    const call = await openCall(server.ctx, {
      organizationId: team.organizationId,
      agentId: agent.id,
      userId: team.owner.userId,
      roomName,
      architecture: 'pipeline',
      direction: 'web',
    })
    expect(call.status).toBe('active')
    await backdate(roomName, 90)
    const before = await getBalanceMicros(server.ctx.db, team.organizationId)

    const results = await Promise.all(
      ['room_finished', 'participant_left', 'room_finished', 'room_vanished'].map((reason) =>
        closeCall(server.ctx, { roomName, reason }),
      ),
    )
    unsubscribe()
    const winners = results.filter((result) => result !== null)
    expect(winners).toHaveLength(1)
    const closed = winners[0] as CallRow
    expect(closed.status).toBe('ended')
    expect(closed.durationSeconds).toBeGreaterThanOrEqual(90)
    expect(closed.costMicros).toBe(priceCall('pipeline', closed.durationSeconds ?? 0))
    expect((await ledgerOf(call.id)).map((row) => Number(row.amount))).toEqual([-closed.costMicros])
    expect(before - (await getBalanceMicros(server.ctx.db, team.organizationId))).toBe(closed.costMicros)
    expect(closedCalls.map((c) => c.id)).toEqual([call.id])
    expect(await closeCall(server.ctx, { roomName, reason: 'room_finished' })).toBeNull()

    const deliveries = () => receiver.received.filter((request) => request.body.includes(call.id))
    await vi.waitFor(() => expect(deliveries()).toHaveLength(1), { timeout: 15_000 })
    const delivery = deliveries()[0]
    expect(
      await isSignedForAgent(server, { organizationId: team.organizationId, agentId: agent.id }, delivery),
    ).toBe(true)
    const payload = JSON.parse(delivery?.body ?? '{}')
    expect(payload.event).toBe('call.ended')
    expect(payload.data).toMatchObject({
      call_id: call.id,
      agent_id: agent.id,
      room_name: roomName,
      direction: 'web',
      status: 'ended',
      duration: closed.durationSeconds,
      total_cost: closed.costMicros / 1_000_000,
    })
  })

  it('charges the whole call even when the balance cannot cover it: the balance goes below zero', async () => {
    const agent = await voiceAgent('realtime')
    const roomName = `agent_${agent.id}_${team.owner.userId}_2`
    const call = await openCall(server.ctx, {
      organizationId: team.organizationId,
      agentId: agent.id,
      roomName,
      architecture: 'realtime',
      direction: 'outbound',
      phoneNumber: '+15550001111',
    })
    const balance = await getBalanceMicros(server.ctx.db, team.organizationId)
    // Long enough to cost more than the whole balance.
    await backdate(roomName, Math.ceil((balance / 35_000) * 60) + 600)
    const closed = await closeCall(server.ctx, { roomName, reason: 'room_finished' })
    expect(closed?.costMicros).toBeGreaterThan(balance)
    expect(closed?.costMicros).toBe(priceCall('realtime', closed?.durationSeconds ?? 0))
    expect(await getBalanceMicros(server.ctx.db, team.organizationId)).toBe(
      balance - (closed?.costMicros ?? 0),
    )
    expect((await ledgerOf(call.id)).map((row) => row.reason)).toEqual(['Outbound call'])
    await setBalanceMicros(server, { organizationId: team.organizationId, micros: balance })
  })

  it('does not bill a failed call (it never connected)', async () => {
    const agent = await voiceAgent('pipeline')
    const roomName = `agent_${agent.id}_${team.owner.userId}_3`
    const call = await openCall(server.ctx, {
      organizationId: team.organizationId,
      agentId: agent.id,
      roomName,
      architecture: 'pipeline',
      direction: 'outbound',
    })
    await backdate(roomName, 40)
    const closed = await closeCall(server.ctx, { roomName, reason: 'no_answer', status: 'failed' })
    expect([closed?.status, closed?.costMicros]).toEqual(['failed', 0])
    expect(await ledgerOf(call.id)).toEqual([])
  })

  it('closes calls requested together in one go, each with its own reason, billing each in order', async () => {
    const agent = await voiceAgent('pipeline')
    const rooms = Array.from({ length: 4 }, (_, i) => `agent_${agent.id}_${team.owner.userId}_batch_${i}`)
    const calls = await Promise.all(
      rooms.map((roomName) =>
        openCall(server.ctx, {
          organizationId: team.organizationId,
          agentId: agent.id,
          roomName,
          architecture: 'pipeline',
          direction: 'outbound',
        }),
      ),
    )
    await Promise.all(rooms.map((roomName) => backdate(roomName, 600)))
    // Ten minutes cost 175,000: the balance covers two of the calls and part of the third, and
    // each is charged whole all the same (the balance goes below zero).
    await setBalanceMicros(server, { organizationId: team.organizationId, micros: 400_000 })

    const [first, second, third, failed, again] = await Promise.all([
      closeCall(server.ctx, { roomName: rooms[0] ?? '', reason: 'room_finished' }),
      closeCall(server.ctx, { roomName: rooms[1] ?? '', reason: 'participant_left' }),
      closeCall(server.ctx, { roomName: rooms[2] ?? '', reason: 'room_finished' }),
      closeCall(server.ctx, { roomName: rooms[3] ?? '', reason: 'no_answer', status: 'failed' }),
      closeCall(server.ctx, { roomName: rooms[0] ?? '', reason: 'room_vanished' }),
    ])
    expect([first?.id, second?.id, third?.id, failed?.id]).toEqual(calls.map((call) => call.id))
    expect([first?.endReason, second?.endReason, third?.endReason, failed?.endReason]).toEqual([
      'room_finished',
      'participant_left',
      'room_finished',
      'no_answer',
    ])
    expect(again).toBeNull()
    const charged = [first, second, third].map((call) => call?.costMicros ?? 0)
    const isFullPrice = [first, second, third].map(
      (call) => call?.costMicros === priceCall('pipeline', call?.durationSeconds ?? 0),
    )
    expect(isFullPrice.filter(Boolean)).toHaveLength(3)
    expect(failed?.costMicros).toBe(0)
    const total = charged.reduce((sum, cost) => sum + cost, 0)
    expect(total).toBeGreaterThan(400_000)
    expect(await getBalanceMicros(server.ctx.db, team.organizationId)).toBe(400_000 - total)
    const stored = await server.ctx.db
      .selectFrom('calls')
      .select(['id', 'cost_micros as costMicros'])
      .where('room_name', 'in', rooms)
      .orderBy('id')
      .execute()
    expect(stored.map((row) => Number(row.costMicros))).toEqual([...charged, 0])
  })

  it('answers null for a room without an active call', async () => {
    expect(await closeCall(server.ctx, { roomName: 'no-such-room', reason: 'room_finished' })).toBeNull()
  })
})
