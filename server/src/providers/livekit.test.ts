import { createHash } from 'node:crypto'
import { AccessToken, TokenVerifier } from 'livekit-server-sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FakeLiveKit, startFakeLiveKit } from '../../test/helpers/fake-livekit.ts'
import { loadConfig } from '../config.ts'
import { dials } from '../metrics/registry.ts'
import { createLiveKit, type LiveKit, SipDialError } from './livekit.ts'

let fake: FakeLiveKit
let livekit: LiveKit

const baseEnv = {
  NODE_ENV: 'test',
  JWT_SECRET: 'j'.repeat(32),
  ADMIN_TOKEN: 'a'.repeat(32),
  ENCRYPTION_KEY: 'e'.repeat(32),
}

beforeAll(async () => {
  fake = await startFakeLiveKit()
  const config = loadConfig({ ...baseEnv, ...fake.env })
  livekit = createLiveKit(config) as LiveKit
})
afterAll(async () => fake?.close())

const dialError = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('the dial was answered')
    },
    (error: unknown) => error as SipDialError,
  )

describe('the LiveKit adapter', () => {
  it('is absent when LiveKit is not configured', () => {
    expect(createLiveKit(loadConfig(baseEnv))).toBeNull()
  })

  it('hands browsers the ws URL and calls the http form of the same host', async () => {
    expect(livekit.clientUrl).toBe(fake.url)
    await livekit.createRoom({ name: 'room-a', emptyTimeoutSeconds: 30, metadata: '{"x":1}' })
    const [call] = fake.callsTo('RoomService/CreateRoom')
    expect(call?.body).toMatchObject({ name: 'room-a', emptyTimeout: 30, metadata: '{"x":1}' })
    expect(fake.rooms.has('room-a')).toBe(true)
  })

  it('signs every API call with a LiveKit API JWT carrying the grant the call needs', async () => {
    await livekit.dispatchAgent({ roomName: 'room-a', metadata: '{"agent":"x"}' })
    await livekit.listRoomNames()
    const create = await fake.claimsOf(fake.callsTo('RoomService/CreateRoom')[0] as never)
    expect(create.iss).toBe(fake.apiKey)
    expect(create.video?.roomCreate).toBe(true)
    const dispatchCall = fake.callsTo('AgentDispatchService/CreateDispatch')[0]
    expect(dispatchCall?.body).toMatchObject({
      room: 'room-a',
      agentName: 'parley-agent',
      metadata: '{"agent":"x"}',
    })
    const dispatch = await fake.claimsOf(dispatchCall as never)
    expect(dispatch.video).toMatchObject({ roomAdmin: true, room: 'room-a' })
    const list = await fake.claimsOf(fake.callsTo('RoomService/ListRooms')[0] as never)
    expect(list.video?.roomList).toBe(true)
    await expect(
      fake.claimsOf({ method: 'x', body: {}, authorization: 'Bearer not-a-token' }),
    ).rejects.toThrow()
  })

  it('lists and deletes rooms; deleting a room that is gone is not an error', async () => {
    await livekit.createRoom({ name: 'room-b' })
    expect((await livekit.listRoomNames(['room-b', 'room-none'])).sort()).toEqual(['room-b'])
    await livekit.deleteRoom('room-b')
    expect(fake.rooms.has('room-b')).toBe(false)
    await livekit.deleteRoom('room-b')
    expect(fake.callsTo('RoomService/DeleteRoom')).toHaveLength(2)
  })

  it('issues participant tokens valid 1 h with join, publish, subscribe and no data publishing', async () => {
    const token = await livekit.createParticipantToken({ identity: 'user-1', roomName: 'room-a' })
    const claims = await new TokenVerifier(fake.apiKey, fake.apiSecret).verify(token)
    expect(claims.sub).toBe('user-1')
    expect(claims.video).toEqual({
      room: 'room-a',
      roomJoin: true,
      canPublish: true,
      canSubscribe: true,
      canPublishData: false,
    })
    expect(Number(claims.exp) - Number(claims.nbf)).toBe(3600)
  })

  it('maps SIP outcomes: answered, busy, no answer, timeout, error; each counted in parley_dials_total', async () => {
    const counted = async () =>
      Object.fromEntries(
        (await dials.get()).values.map((sample) => [String(sample.labels.result), sample.value]),
      )
    const before = await counted()
    fake.scriptSip('+15550000002', { result: 'busy' })
    fake.scriptSip('+15550000003', { result: 'no_answer' })
    fake.scriptSip('+15550000004', { result: 'timeout' })
    fake.scriptSip('+15550000005', { result: 'error' })
    const dial = (number: string) =>
      livekit.dialSip({ trunkId: 'ST_1', number, roomName: `dial-${number}`, identity: `sip-${number}` })
    const answered = await dial('+15550000001')
    expect(answered.participantId).toMatch(/^PA_/)
    expect(answered.sipCallId).toMatch(/^SCL_/)
    const sipCall = fake.callsTo('SIP/CreateSIPParticipant')[0]
    expect(sipCall?.body).toMatchObject({
      sipTrunkId: 'ST_1',
      sipCallTo: '+15550000001',
      waitUntilAnswered: true,
    })
    expect((await fake.claimsOf(sipCall as never)).sip?.call).toBe(true)
    const busy = await dialError(dial('+15550000002'))
    expect(busy).toBeInstanceOf(SipDialError)
    expect([busy.outcome, busy.sipStatus]).toEqual(['busy', 486])
    const noAnswer = await dialError(dial('+15550000003'))
    expect([noAnswer.outcome, noAnswer.sipStatus]).toEqual(['no_answer', 480])
    const timeout = await dialError(dial('+15550000004'))
    expect([timeout.outcome, timeout.sipStatus]).toEqual(['no_answer', 408])
    const failed = await dialError(dial('+15550000005'))
    expect([failed.outcome, failed.sipStatus]).toEqual(['failed', 500])
    const after = await counted()
    const added = (result: string) => (after[result] ?? 0) - (before[result] ?? 0)
    expect([added('answered'), added('busy'), added('no_answer'), added('failed')]).toEqual([1, 1, 2, 1])
  })

  it('counts held dials in flight per room prefix', async () => {
    fake.scriptSip('+15550000010', { result: 'answered', hold: true })
    fake.scriptSip('+15550000011', { result: 'busy', hold: true })
    const first = livekit.dialSip({ trunkId: 'T', number: '+15550000010', roomName: 'held_1', identity: 'a' })
    const second = dialError(
      livekit.dialSip({ trunkId: 'T', number: '+15550000011', roomName: 'held_2', identity: 'b' }),
    )
    while (fake.sipInFlight('held_') < 2) await new Promise((resolve) => setImmediate(resolve))
    fake.releaseSip()
    await first
    expect((await second).outcome).toBe('busy')
    expect(fake.sipInFlight('held_')).toBe(0)
    expect(fake.maxSipInFlight('held_')).toBe(2)
  })

  it('verifies webhooks signed as LiveKit signs them and refuses others', async () => {
    const body = JSON.stringify({ event: 'room_finished', room: { name: 'room-a', sid: 'RM_1' } })
    const sign = async (secret: string, signedBody = body) => {
      const token = new AccessToken(fake.apiKey, secret, { ttl: '5m' })
      token.sha256 = createHash('sha256').update(signedBody).digest('base64')
      return token.toJwt()
    }
    const event = await livekit.receiveWebhook(body, await sign(fake.apiSecret))
    expect(event.event).toBe('room_finished')
    expect(event.room?.name).toBe('room-a')
    await expect(livekit.receiveWebhook(body, await sign('x'.repeat(32)))).rejects.toThrow()
    await expect(livekit.receiveWebhook(body, await sign(fake.apiSecret, `${body} `))).rejects.toThrow()
    await expect(livekit.receiveWebhook(body, undefined)).rejects.toThrow()
  })

  it('fails with the Twirp error when the media server fails', async () => {
    fake.fail('RoomService/CreateRoom')
    await expect(livekit.createRoom({ name: 'room-c' })).rejects.toMatchObject({ status: 500 })
    fake.heal()
  })
})
