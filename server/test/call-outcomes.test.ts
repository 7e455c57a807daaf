import { randomBytes } from 'node:crypto'
import type { CallingWindow } from '@parley/shared'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { priceCall } from '../src/calls/pricing.ts'
import {
  agentJoinsAnswered,
  attemptsOf,
  type BatchTenant,
  contactsOf,
  createBatchJob,
  hangUpAnswered,
  jobStatusOf,
  setUpBatchTenant,
} from './helpers/batch-dialer.ts'
import { createFakeClock } from './helpers/fake-clock.ts'
import { type FakeLiveKit, postLiveKitWebhook, startFakeLiveKit } from './helpers/fake-livekit.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

// Outcomes on every call and retries by outcome, on a fake clock: sweeps run only on tick().
const clock = createFakeClock('2027-06-09T15:00:00Z')
const WORKER_TOKEN = randomBytes(24).toString('hex')
let fake: FakeLiveKit
let server: TestServer
let tenant: BatchTenant
let other: BatchTenant

beforeAll(async () => {
  fake = await startFakeLiveKit()
  server = await startTestServer({ env: { ...fake.env, BATCH_TICK_MS: '3600000', WORKER_TOKEN }, clock })
  tenant = await setUpBatchTenant(server)
  other = await setUpBatchTenant(server, { number: '+14155550199' })
}, 180_000)
afterAll(async () => {
  fake?.releaseSip()
  await server?.destroy()
  await fake?.close()
})

const tick = async () => {
  await server.dialer?.tick()
}

/** The worker's POST /v1/calls/{callId}/end. */
const workerEnds = async (callId: string, json: Record<string, unknown>) => {
  const response = await server.request(`/v1/calls/${callId}/end`, {
    method: 'POST',
    token: WORKER_TOKEN,
    json,
  })
  expect(response.status).toBe(200)
  return (await response.json()).data as { ended: boolean }
}

const callOf = async (callId: string, key = tenant.key) =>
  (await (await server.request(`/v1/calls/${callId}`, { token: key })).json()).data

/** The live (answered) attempt of the job's contact `phone`, once the dialer has it. */
const answeredAttempt = async (batchJobId: string, phone: string, attemptNumber = 1) => {
  let found: { callId: string | null } | undefined
  await vi.waitFor(
    async () => {
      found = (await attemptsOf(server, batchJobId)).find(
        (a) => a.phone === phone && a.attemptNumber === attemptNumber && a.outcome === 'answered',
      )
      expect(found).toBeDefined()
    },
    { timeout: 15_000 },
  )
  return found?.callId as string
}

const contactOf = async (batchJobId: string, phone: string) =>
  (await contactsOf(server, batchJobId)).find((contact) => contact.phone === phone)

const roomOf = async (callId: string) =>
  (
    await server.ctx.db
      .selectFrom('calls')
      .select('room_name')
      .where('id', '=', callId)
      .executeTakeFirstOrThrow()
  ).room_name

const webhook = async (event: Record<string, unknown>) => {
  const response = await postLiveKitWebhook(server.url, fake, event)
  expect(response.ok).toBe(true)
}

const weekdays: CallingWindow = { start: '09:00', end: '17:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] }

describe('call outcomes and retries by outcome', () => {
  it('stores a voicemail and its verdict, retries it the next day inside the window, then stops', async () => {
    // Friday 16:30 in New York (20:30Z): the next day is a Saturday, outside the window, so the
    // retry waits for Monday 09:00 New York (13:00Z).
    clock.set('2027-06-11T20:30:00Z')
    const phone = '+12125550140'
    fake.scriptSip(phone, { result: 'answered' })
    const batchJobId = await createBatchJob(server, tenant, {
      contacts: [{ phone, timeZone: 'America/New_York' }],
      callingWindow: weekdays,
    })
    await tick()
    const firstCall = await answeredAttempt(batchJobId, phone)
    expect(await workerEnds(firstCall, { reason: 'voicemail_left', amdVerdict: 'voicemail' })).toEqual({
      ended: true,
    })
    expect(await callOf(firstCall)).toMatchObject({
      status: 'ended',
      outcome: 'voicemail_left',
      amdVerdict: 'voicemail',
      endReason: 'voicemail_left',
    })
    const waiting = await contactOf(batchJobId, phone)
    expect(waiting).toMatchObject({ status: 'pending', last_outcome: 'voicemail_left' })
    expect(waiting?.next_attempt_at).toEqual(new Date('2027-06-14T13:00:00Z'))

    // The contact list shows the try with its outcome, SIP status and times.
    const listed = await (await server.request(`/batch/${batchJobId}/contacts`, { token: tenant.key })).json()
    expect(listed.data[0].tries).toEqual([
      {
        attemptNumber: 1,
        outcome: 'voicemail_left',
        sipStatus: 200,
        callId: firstCall,
        startedAt: expect.any(String),
        finishedAt: expect.any(String),
      },
    ])
    // Another organization sees neither the campaign nor its calls.
    expect((await server.request(`/batch/${batchJobId}/contacts`, { token: other.key })).status).toBe(404)
    expect((await server.request(`/v1/calls/${firstCall}`, { token: other.key })).status).toBe(404)

    clock.set('2027-06-14T12:59:00Z')
    await tick()
    expect(await attemptsOf(server, batchJobId)).toHaveLength(1)
    clock.set('2027-06-14T13:00:00Z')
    await tick()
    const secondCall = await answeredAttempt(batchJobId, phone, 2)
    await workerEnds(secondCall, { reason: 'voicemail_hung_up', amdVerdict: 'voicemail' })
    // One voicemail retry only: the contact ends, not reached.
    expect(await contactOf(batchJobId, phone)).toMatchObject({
      status: 'failed',
      attempts: 2,
      last_outcome: 'voicemail_hung_up',
    })
    await tick()
    await vi.waitFor(async () => expect((await jobStatusOf(server, batchJobId)).status).toBe('completed'))
    expect((await attemptsOf(server, batchJobId)).map((a) => a.outcome)).toEqual([
      'voicemail_left',
      'voicemail_hung_up',
    ])
  })

  it('lets the first decisive close win: a later webhook never turns a voicemail into completed', async () => {
    clock.set('2027-06-15T14:00:00Z')
    const [first, second] = ['+12125550141', '+12125550142']
    fake.scriptSip(first, { result: 'answered' })
    fake.scriptSip(second, { result: 'answered' })
    const batchJobId = await createBatchJob(server, tenant, {
      contacts: [{ phone: first }, { phone: second }],
    })
    await tick()
    const firstCall = await answeredAttempt(batchJobId, first)
    const secondCall = await answeredAttempt(batchJobId, second)

    // The worker's voicemail end first, then LiveKit's webhooks of the emptied room.
    await workerEnds(firstCall, { reason: 'voicemail_hung_up', amdVerdict: 'voicemail' })
    const room = await roomOf(firstCall)
    await webhook({
      event: 'participant_left',
      room: { sid: 'RM_1', name: room },
      participant: { sid: 'PA_sip', identity: 'sip', kind: 'SIP' },
    })
    await webhook({ event: 'room_finished', room: { sid: 'RM_1', name: room } })
    expect(await callOf(firstCall)).toMatchObject({ outcome: 'voicemail_hung_up', amdVerdict: 'voicemail' })
    expect(await contactOf(batchJobId, first)).toMatchObject({
      status: 'pending',
      last_outcome: 'voicemail_hung_up',
    })

    // The machine hung up first (room_finished closed it as completed); the worker's end after it
    // still says what the call was, and the contact is retried by the policy.
    await webhook({ event: 'room_finished', room: { sid: 'RM_2', name: await roomOf(secondCall) } })
    expect(await callOf(secondCall)).toMatchObject({ outcome: 'completed' })
    expect(await contactOf(batchJobId, second)).toMatchObject({ status: 'completed' })
    expect(await workerEnds(secondCall, { reason: 'voicemail_hung_up', amdVerdict: 'voicemail' })).toEqual({
      ended: false,
    })
    expect(await callOf(secondCall)).toMatchObject({ outcome: 'voicemail_hung_up', amdVerdict: 'voicemail' })
    const retried = await contactOf(batchJobId, second)
    expect(retried).toMatchObject({ status: 'pending', last_outcome: 'voicemail_hung_up' })
    expect(retried?.next_attempt_at).toEqual(new Date('2027-06-16T14:00:00Z'))
    expect((await attemptsOf(server, batchJobId)).map((a) => a.outcome)).toEqual([
      'voicemail_hung_up',
      'voicemail_hung_up',
    ])
    await server.request(`/batch/${batchJobId}/cancel`, { method: 'POST', token: tenant.key })
  })

  it('never retries completed or rejected calls; retries busy by the campaign policy', async () => {
    clock.set('2027-06-16T14:00:00Z')
    const [person, declines, busy] = ['+12125550143', '+12125550144', '+12125550145']
    fake.scriptSip(person, { result: 'answered' })
    fake.scriptSip(declines, { result: 'declined' })
    fake.scriptSip(busy, { result: 'busy' })
    const batchJobId = await createBatchJob(server, tenant, {
      contacts: [{ phone: person }, { phone: declines }, { phone: busy }],
      maxAttempts: 5,
      retryPolicy: { busy: { tries: 1, afterMinutes: 5 } },
    })
    await tick()
    await answeredAttempt(batchJobId, person)
    await vi.waitFor(async () => expect((await contactOf(batchJobId, busy))?.status).toBe('pending'), {
      timeout: 15_000,
    })
    await vi.waitFor(async () => expect((await contactOf(batchJobId, declines))?.status).toBe('failed'), {
      timeout: 15_000,
    })
    expect((await contactOf(batchJobId, busy))?.next_attempt_at).toEqual(new Date('2027-06-16T14:05:00Z'))
    await hangUpAnswered(server, fake, batchJobId)

    clock.set('2027-06-16T14:05:00Z')
    await tick()
    await vi.waitFor(async () => expect((await contactOf(batchJobId, busy))?.status).toBe('failed'), {
      timeout: 15_000,
    })
    await tick()
    await vi.waitFor(async () => expect((await jobStatusOf(server, batchJobId)).status).toBe('completed'))
    const summary = (await attemptsOf(server, batchJobId)).map((a) => [a.phone, a.outcome, a.sipStatus])
    expect(summary).toEqual([
      [person, 'completed', 200],
      [declines, 'rejected', 603],
      [busy, 'busy', 486],
      [busy, 'busy', 486],
    ])
    const calls = await (
      await server.request(`/v1/calls?batchJobId=${batchJobId}&limit=10`, { token: tenant.key })
    ).json()
    expect(calls.data.map((c: { outcome: string }) => c.outcome).sort()).toEqual([
      'busy',
      'busy',
      'completed',
      'rejected',
    ])
  })

  it('bills a machine only while the agent was in the call; a voicemail left like any call', async () => {
    clock.set('2027-06-17T14:00:00Z')
    const [noAgent, hungUp, left] = ['+12125550146', '+12125550147', '+12125550148']
    for (const phone of [noAgent, hungUp, left]) fake.scriptSip(phone, { result: 'answered' })
    const batchJobId = await createBatchJob(server, tenant, {
      contacts: [{ phone: noAgent }, { phone: hungUp }, { phone: left }],
    })
    await tick()
    const noAgentCall = await answeredAttempt(batchJobId, noAgent)
    const hungUpCall = await answeredAttempt(batchJobId, hungUp)
    const leftCall = await answeredAttempt(batchJobId, left)
    // No agent in the room: the machine's seconds cost nothing.
    await workerEnds(noAgentCall, { reason: 'voicemail_hung_up', amdVerdict: 'voicemail' })
    expect(await callOf(noAgentCall)).toMatchObject({ outcome: 'voicemail_hung_up', costUsd: 0 })

    await agentJoinsAnswered(server, fake, batchJobId)
    // Both present for 5 s (the billing clock moved back rather than waiting).
    await server.ctx.db
      .updateTable('calls')
      .set({ billing_since: new Date(Date.now() - 5_000) })
      .where('id', 'in', [hungUpCall, leftCall])
      .execute()
    await workerEnds(hungUpCall, { reason: 'voicemail_hung_up', amdVerdict: 'voicemail' })
    await workerEnds(leftCall, { reason: 'voicemail_left', amdVerdict: 'voicemail' })
    for (const callId of [hungUpCall, leftCall]) {
      const call = await callOf(callId)
      expect(call.costUsd).toBeGreaterThanOrEqual(priceCall('pipeline', 5) / 1_000_000)
      expect(call.costUsd).toBeLessThanOrEqual(priceCall('pipeline', 30) / 1_000_000)
    }
    const ledger = await server.ctx.db
      .selectFrom('credit_ledger')
      .select('reference')
      .where('reference', 'in', [noAgentCall, hungUpCall, leftCall])
      .execute()
    expect(ledger.map((row) => row.reference).sort()).toEqual([hungUpCall, leftCall].sort())
    await server.request(`/batch/${batchJobId}/cancel`, { method: 'POST', token: tenant.key })
  })

  it('validates retryPolicy strictly on create and shows the policy in force', async () => {
    const create = (retryPolicy: unknown) =>
      server.request('/batch/create', {
        method: 'POST',
        token: tenant.key,
        json: {
          fromPhoneNumberId: tenant.phoneNumberId,
          name: 'Policy',
          contacts: [{ phone: '+12125550149' }],
          retryPolicy,
        },
      })
    for (const bad of [
      { completed: { tries: 1, afterMinutes: 5 } },
      { busy: { tries: 11, afterMinutes: 5 } },
      { busy: { tries: 1 } },
      { busy: { tries: 1, afterMinutes: 5, extra: true } },
    ]) {
      const response = await create(bad)
      expect(response.status).toBe(400)
      expect((await response.json()).code).toBe('validation_error')
    }
    fake.scriptSip('+12125550149', { result: 'busy' })
    const created = await create({ no_answer: { tries: 0, afterMinutes: 0 } })
    expect(created.status).toBe(201)
    const { batchJobId } = await created.json()
    const job = await (await server.request(`/batch/${batchJobId}`, { token: tenant.key })).json()
    expect(job.data.retryPolicy).toEqual({
      busy: { tries: 2, afterMinutes: 10 },
      no_answer: { tries: 0, afterMinutes: 0 },
      voicemail: { tries: 1, afterMinutes: 1440 },
      phone_menu: { tries: 0, afterMinutes: 1440 },
    })
    await server.request(`/batch/${batchJobId}/cancel`, { method: 'POST', token: tenant.key })
  })

  it('counts outcomes per day and agent in analytics, and exports them with each call', async () => {
    // The calls above started at the database's time (today), whatever the fake clock says.
    const today = new Date().toISOString().slice(0, 10)
    const response = await server.request(`/v1/analytics?from=${today}&to=${today}`, { token: tenant.key })
    expect(response.status).toBe(200)
    const { data } = await response.json()
    const row = data.find((day: { agentId: string }) => day.agentId === tenant.agent.id)
    expect(row.callOutcomes).toMatchObject({
      voicemail_left: 2,
      voicemail_hung_up: 5,
      rejected: 1,
      completed: 1,
    })
    // The policy test's campaign may have dialled its busy contact once before its cancel.
    expect(row.callOutcomes.busy).toBeGreaterThanOrEqual(2)
    const theirs = await (
      await server.request(`/v1/analytics?from=${today}&to=${today}`, { token: other.key })
    ).json()
    expect(theirs.data).toEqual([])

    const studio = (path: string, init: { method?: string; json?: unknown } = {}) =>
      server.request(path, { ...init, token: tenant.team.owner.session.token })
    const created = await studio('/api/export', { method: 'POST', json: { kind: 'calls', format: 'ndjson' } })
    expect(created.status).toBe(202)
    const { id } = await created.json()
    await expect
      .poll(async () => (await (await studio(`/api/export/${id}`)).json()).status, { timeout: 30_000 })
      .toBe('completed')
    const lines = (await (await studio(`/api/export/${id}/download`)).text())
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines.length).toBeGreaterThan(0)
    const declined = lines.find((line) => line.outcome === 'rejected')
    expect(declined).toMatchObject({ status: 'failed', sip_status: 603, amd_verdict: null })
    expect(lines.some((line) => line.outcome === 'voicemail_left' && line.amd_verdict === 'voicemail')).toBe(
      true,
    )
  })
})
