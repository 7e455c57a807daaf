import { EventEmitter } from 'node:events'
import { RoomEvent } from '@livekit/rtc-node'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { registerPhoneNumber } from '../../server/test/helpers/batch.ts'
import { setBalanceMicros } from '../../server/test/helpers/billing.ts'
import { type Parley, startParley } from '../test/helpers/parley.ts'
import { createSipStatusTracker, SIP_CALL_STATUS, type SipStatusRoom, watchSipStatus } from './sip-status.ts'
import { createWorkerApi, type WorkerApi } from './worker-api.ts'

/**
 * The worker's view of the outbound callee's `sip.callStatus`, reported to a real Parley server.
 * No media server runs in the tests, so the room is a stand-in for rtc-node's Room: an emitter
 * with its remote participants, firing the Room's own event names with LiveKit's attribute.
 */

let parley: Parley
let api: WorkerApi
let phoneNumberId: string

beforeAll(async () => {
  parley = await startParley()
  api = createWorkerApi({ apiUrl: parley.server.url, workerToken: parley.workerToken, retryBaseMs: 10 })
  const agent = await parley.makeVoiceAgent()
  phoneNumberId = await registerPhoneNumber(parley.server, parley.key, {
    number: '+14155550100',
    outboundAgentId: agent.id,
    sipTrunkId: 'ST_outbound',
  })
  await setBalanceMicros(parley.server, { organizationId: parley.team.organizationId, micros: 10_000_000 })
}, 180_000)
afterAll(async () => {
  parley?.livekit.releaseSip()
  await parley?.close()
})

type FakeParticipant = { identity: string; attributes: Record<string, string> }

const fakeRoom = () => {
  const emitter = new EventEmitter()
  const remoteParticipants = new Map<string, FakeParticipant>()
  const room = Object.assign(emitter, { remoteParticipants })
  /** LiveKit SIP changes the participant's status: the Room's attribute event. */
  const setStatus = (participant: FakeParticipant, status: string) => {
    participant.attributes = { ...participant.attributes, [SIP_CALL_STATUS]: status }
    emitter.emit(RoomEvent.ParticipantAttributesChanged, { [SIP_CALL_STATUS]: status }, participant)
  }
  const join = (participant: FakeParticipant) => {
    remoteParticipants.set(participant.identity, participant)
    emitter.emit(RoomEvent.ParticipantConnected, participant)
  }
  return { room: room as unknown as SipStatusRoom, emitter, remoteParticipants, setStatus, join }
}

/** A call placed with POST /v1/calls whose phone rings until the test releases it. */
const ringingCall = async (to: string) => {
  parley.livekit.scriptSip(to, { result: 'answered', hold: true })
  const placed = await parley.server.request('/v1/calls', {
    method: 'POST',
    token: parley.key,
    json: { fromPhoneNumberId: phoneNumberId, to },
  })
  expect(placed.status).toBe(201)
  const { id } = (await placed.json()).data as { id: string }
  await vi.waitFor(() => expect(parley.livekit.dialsTo(to)).toBe(1))
  return id
}

const eventTypesOf = async (callId: string) =>
  (
    await parley.server.ctx.db
      .selectFrom('call_events')
      .select('type')
      .where('call_id', '=', callId)
      .orderBy('id')
      .execute()
  ).map((row) => row.type)

describe('the callee’s SIP status', () => {
  it('reports each progress status once and never one before the furthest', () => {
    const next = createSipStatusTracker()
    const seen = ['dialing', 'dialing', 'ringing', 'automation', 'dialing', 'ringing', 'active', 'hangup']
    expect(seen.map((status) => next(status))).toEqual([
      'dialing',
      null,
      'ringing',
      null,
      null,
      null,
      'active',
      null,
    ])
    const late = createSipStatusTracker()
    expect([undefined, 'unknown', 'active', 'ringing'].map((status) => late(status))).toEqual([
      null,
      null,
      'active',
      null,
    ])
  })

  it('watches the callee in the room and the server records dialing, ringing and answered', async () => {
    const callId = await ringingCall('+14155550160')
    const { room, emitter, setStatus, join } = fakeRoom()
    const callee = { identity: `contact-${callId}`, attributes: {} as Record<string, string> }
    const stranger = { identity: 'someone-else', attributes: {} as Record<string, string> }
    const reported: string[] = []
    const watcher = watchSipStatus({
      room,
      identity: callee.identity,
      report: async (status) => {
        reported.push(status)
        return api.sipStatus(callId, status)
      },
      onError: (error) => {
        throw error
      },
    })
    // The callee joins dialing; another participant's status is not theirs.
    join(stranger)
    setStatus(stranger, 'ringing')
    callee.attributes = { [SIP_CALL_STATUS]: 'dialing' }
    join(callee)
    setStatus(callee, 'ringing')
    setStatus(callee, 'ringing')
    setStatus(callee, 'active')
    await watcher.settled()
    expect(reported).toEqual(['dialing', 'ringing', 'active'])
    // Answered: it stops listening.
    expect(emitter.listenerCount(RoomEvent.ParticipantAttributesChanged)).toBe(0)
    expect(emitter.listenerCount(RoomEvent.ParticipantConnected)).toBe(0)
    expect(await eventTypesOf(callId)).toEqual(['queued', 'dialing', 'ringing', 'answered'])

    // The dial's own answer adds no second `answered`.
    parley.livekit.releaseSip()
    await parley.server.request(`/v1/calls/${callId}/hangup`, { method: 'POST', token: parley.key })
    expect(await eventTypesOf(callId)).toEqual(['queued', 'dialing', 'ringing', 'answered', 'ended'])
  })

  it('reports the status the callee has when the worker joins, and what the server answers', async () => {
    const callId = await ringingCall('+14155550161')
    const { room, remoteParticipants, setStatus } = fakeRoom()
    const callee = { identity: `contact-${callId}`, attributes: { [SIP_CALL_STATUS]: 'ringing' } }
    remoteParticipants.set(callee.identity, callee)
    const answers: Array<string | null> = []
    const watcher = watchSipStatus({
      room,
      identity: callee.identity,
      report: async (status) => answers.push((await api.sipStatus(callId, status)).recorded),
      onError: (error) => {
        throw error
      },
    })
    setStatus(callee, 'active')
    await watcher.settled()
    expect(answers).toEqual(['ringing', 'answered'])
    parley.livekit.releaseSip()
    await parley.server.request(`/v1/calls/${callId}/hangup`, { method: 'POST', token: parley.key })
  })

  it('passes a failed report to onError and goes on', async () => {
    const { room, join } = fakeRoom()
    const failures: string[] = []
    const watcher = watchSipStatus({
      room,
      identity: 'contact-call_unknown',
      report: (status) => api.sipStatus('call_unknown', status),
      onError: (error, status) => failures.push(`${status}: ${String(error)}`),
    })
    join({ identity: 'contact-call_unknown', attributes: { [SIP_CALL_STATUS]: 'ringing' } })
    await watcher.settled()
    expect(failures).toHaveLength(1)
    expect(failures[0]).toMatch(/^ringing: .*404/)
    watcher.stop()
  })
})
