import { ZBatchFailedEvent, ZDispatchMetadata } from '@parley/shared'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { jobRoomPrefix } from '../src/batch/dialer/dial-contact.ts'
import { endCallsWithoutAgent } from '../src/calls/jobs.ts'
import { estimateCallMicros } from '../src/calls/pricing.ts'
import {
  agentJoinsAnswered,
  attemptsOf,
  type BatchTenant,
  contactsOf,
  createBatchJob,
  hangUpAnswered,
  jobStatusOf,
  phonesFor,
  setUpBatchTenant,
} from './helpers/batch-dialer.ts'
import { setBalanceMicros } from './helpers/billing.ts'
import { type FakeLiveKit, startFakeLiveKit } from './helpers/fake-livekit.ts'
import { type HttpTarget, startHttpTarget } from './helpers/http-target.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let fake: FakeLiveKit
let server: TestServer
let tenant: BatchTenant
let receiver: HttpTarget

beforeAll(async () => {
  fake = await startFakeLiveKit()
  receiver = await startHttpTarget((_request, response) => response.writeHead(200).end('ok'))
  server = await startTestServer({
    env: {
      ...fake.env,
      BATCH_TICK_MS: '50',
      BATCH_RETRY_BASE_MS: '10',
      OUTBOUND_ALLOW_HOSTS: receiver.hostAndPort,
    },
  })
  tenant = await setUpBatchTenant(server)
  // The agent's endpoint hears batch.completed (and the calls' call.ended).
  await server.ctx.db
    .updateTable('agents')
    .set({ webhook_url: `${receiver.origin}/hooks` })
    .where('id', '=', tenant.agent.id)
    .execute()
})
afterAll(async () => {
  fake?.releaseSip()
  await server?.destroy()
  await fake?.close()
  await receiver?.close()
})

/** The batch.completed events the agent's endpoint received for a job. */
const completedEventsOf = (batchJobId: string) =>
  receiver.received
    .map((request) => JSON.parse(request.body) as { event: string; data: Record<string, unknown> })
    .filter((payload) => payload.event === 'batch.completed' && payload.data.batch_job_id === batchJobId)

const countAttempts = async (batchJobId: string) => (await attemptsOf(server, batchJobId)).length

describe('the dialer', () => {
  it('never has more than concurrentCallLimit calls of a job in flight, live calls included', async () => {
    const phones = phonesFor(7, 1000)
    for (const phone of phones) fake.scriptSip(phone, { result: 'answered', hold: true })
    const batchJobId = await createBatchJob(server, tenant, {
      contacts: phones.map((phone) => ({ phone })),
      concurrentCallLimit: 3,
    })
    const prefix = jobRoomPrefix(batchJobId)

    let remaining = phones.length
    while (remaining > 0) {
      const wave = Math.min(3, remaining)
      await vi.waitFor(() => expect(fake.sipInFlight(prefix)).toBe(wave), { timeout: 15_000 })
      // A sweep finds no free slot while three dials ring...
      await server.dialer?.tick()
      expect(await countAttempts(batchJobId)).toBe(phones.length - remaining + wave)
      fake.releaseSip()
      await vi.waitFor(
        async () =>
          expect((await attemptsOf(server, batchJobId)).filter((a) => a.outcome === 'answered')).toHaveLength(
            wave,
          ),
        { timeout: 15_000 },
      )
      // ...nor while the three answered calls are live.
      await server.dialer?.tick()
      expect(await countAttempts(batchJobId)).toBe(phones.length - remaining + wave)
      expect(fake.sipInFlight(prefix)).toBe(0)
      await hangUpAnswered(server, fake, batchJobId)
      remaining -= wave
    }

    await vi.waitFor(async () => expect((await jobStatusOf(server, batchJobId)).status).toBe('completed'), {
      timeout: 15_000,
    })
    expect(fake.maxSipInFlight(prefix)).toBe(3)
    const contacts = await contactsOf(server, batchJobId)
    expect(contacts.map((contact) => [contact.status, contact.attempts])).toEqual(
      phones.map(() => ['completed', 1]),
    )
    for (const phone of phones) expect(fake.dialsTo(phone)).toBe(1)
    await vi.waitFor(() => expect(completedEventsOf(batchJobId)).toHaveLength(1), { timeout: 15_000 })
    expect(completedEventsOf(batchJobId)[0]?.data).toMatchObject({
      agent_id: tenant.agent.id,
      status: 'completed',
      total_contacts: 7,
      completed: 7,
      failed: 0,
      cancelled: 0,
      finished_at: expect.any(String),
    })
  })

  it('retries busy and unanswered dials by the policy, failed ones with back-off up to maxAttempts', async () => {
    const [busy, silent, broken, answers] = phonesFor(4, 2000) as [string, string, string, string]
    fake.scriptSip(busy, { result: 'busy' })
    fake.scriptSip(silent, { result: 'no_answer' })
    fake.scriptSip(broken, { result: 'error' })
    fake.scriptSip(answers, { result: 'answered' })
    const batchJobId = await createBatchJob(server, tenant, {
      contacts: [busy, silent, broken, answers].map((phone) => ({ phone })),
      maxAttempts: 3,
      // Two more tries each, at once (the defaults wait minutes to hours: call-outcomes.test.ts).
      retryPolicy: { busy: { tries: 2, afterMinutes: 0 }, no_answer: { tries: 2, afterMinutes: 0 } },
    })

    await vi.waitFor(
      async () => {
        await hangUpAnswered(server, fake, batchJobId)
        expect((await jobStatusOf(server, batchJobId)).status).toBe('completed')
      },
      { timeout: 20_000, interval: 50 },
    )
    const attempts = await attemptsOf(server, batchJobId)
    const summary = (phone: string) =>
      attempts.filter((a) => a.phone === phone).map((a) => [a.attemptNumber, a.outcome, a.sipStatus])
    expect(summary(busy)).toEqual([
      [1, 'busy', 486],
      [2, 'busy', 486],
      [3, 'busy', 486],
    ])
    expect(summary(silent)).toEqual([
      [1, 'no_answer', 480],
      [2, 'no_answer', 480],
      [3, 'no_answer', 480],
    ])
    expect(summary(broken)).toEqual([
      [1, 'failed', 500],
      [2, 'failed', 500],
      [3, 'failed', 500],
    ])
    expect(summary(answers)).toEqual([[1, 'completed', 200]])
    for (const attempt of attempts) {
      expect(attempt.callId).toMatch(/^[0-9A-Z]{26}$/)
      expect(attempt.finishedAt).not.toBeNull()
    }
    // Back-off: each retry started no earlier than the previous attempt's end plus the delay.
    const brokenAttempts = attempts.filter((a) => a.phone === broken)
    for (let i = 1; i < brokenAttempts.length; i++) {
      const previous = brokenAttempts[i - 1] as (typeof brokenAttempts)[number]
      const current = brokenAttempts[i] as (typeof brokenAttempts)[number]
      expect(current.startedAt.getTime()).toBeGreaterThanOrEqual(
        (previous.finishedAt as Date).getTime() + 10 * 4 ** (i - 1),
      )
    }
    const contacts = await contactsOf(server, batchJobId)
    expect(contacts.map((c) => [c.phone, c.status, c.attempts, c.last_outcome])).toEqual([
      [busy, 'failed', 3, 'busy'],
      [silent, 'failed', 3, 'no_answer'],
      [broken, 'failed', 3, 'failed'],
      [answers, 'completed', 1, 'completed'],
    ])
  })

  it('fills {{field}} placeholders from the contact in the dispatch metadata and reports unknown ones', async () => {
    const [phone] = phonesFor(1, 3000) as [string]
    fake.scriptSip(phone, { result: 'answered' })
    const batchJobId = await createBatchJob(server, tenant, {
      contacts: [{ phone, name: 'Amna', fields: { plan: 'Gold', Region: 'Sindh' } }],
    })
    await vi.waitFor(
      async () => {
        await hangUpAnswered(server, fake, batchJobId)
        expect((await jobStatusOf(server, batchJobId)).status).toBe('completed')
      },
      { timeout: 15_000, interval: 50 },
    )
    const dispatch = fake
      .callsTo('AgentDispatchService/CreateDispatch')
      .find((call) => String(call.body.room).startsWith(jobRoomPrefix(batchJobId)))
    const metadata = ZDispatchMetadata.parse(JSON.parse(String(dispatch?.body.metadata)))
    expect(metadata.agent.prompt).toBe('You call Amna about the Gold plan, due .')
    expect(metadata.agent.greeting).toBe('Hello Amna, this is Parley about your Gold plan.')
    expect(metadata.agent.model).toBe('gpt-4o-mini')
    expect(metadata.contact).toEqual({ phone, name: 'Amna', plan: 'Gold', Region: 'Sindh' })
    expect(metadata.direction).toBe('outbound')
    expect(metadata.batchJobId).toBe(batchJobId)
    expect(metadata.version).toBe(1)
    // The agent waits for the callee: the identity the dial gave the SIP participant.
    const dial = fake
      .callsTo('SIP/CreateSIPParticipant')
      .find((call) => String(call.body.room_name ?? call.body.roomName) === metadata.roomName)
    expect(metadata.sipParticipantIdentity).toBe(
      String(dial?.body.participant_identity ?? dial?.body.participantIdentity),
    )
    expect(metadata.sipParticipantIdentity).toBe(`contact-${metadata.batchContactId}`)
    const [attempt] = await attemptsOf(server, batchJobId)
    expect(metadata.callId).toBe(attempt?.callId)
    expect((await jobStatusOf(server, batchJobId)).unknownPlaceholders).toEqual(['due_date'])
  })

  it('retries a contact whose agent never joined like a failed dial, not as completed', async () => {
    const [phone] = phonesFor(1, 3500) as [string]
    fake.scriptSip(phone, { result: 'answered' })
    const batchJobId = await createBatchJob(server, tenant, { contacts: [{ phone }], maxAttempts: 2 })
    await vi.waitFor(
      async () => expect((await attemptsOf(server, batchJobId))[0]?.outcome).toBe('answered'),
      {
        timeout: 15_000,
      },
    )
    const [first] = await attemptsOf(server, batchJobId)
    // The callee answered; no worker took the call within the bound.
    await server.ctx.db
      .updateTable('calls')
      .set({ created_at: sql`created_at - interval '1 minute'` })
      .where('id', '=', first?.callId ?? '')
      .execute()
    await endCallsWithoutAgent(server.ctx)
    const call = await server.ctx.db
      .selectFrom('calls')
      .selectAll()
      .where('id', '=', first?.callId ?? '')
      .executeTakeFirstOrThrow()
    expect(call).toMatchObject({ status: 'failed', end_reason: 'agent_unavailable' })
    expect(Number(call.cost_micros)).toBe(0)
    expect(fake.rooms.has(call.room_name)).toBe(false)

    // The attempt counts, and after the back-off the contact is dialled again; this time the agent comes.
    await vi.waitFor(async () => expect(await attemptsOf(server, batchJobId)).toHaveLength(2), {
      timeout: 15_000,
    })
    await vi.waitFor(
      async () => expect((await attemptsOf(server, batchJobId))[1]?.outcome).toBe('answered'),
      {
        timeout: 15_000,
      },
    )
    await agentJoinsAnswered(server, fake, batchJobId)
    await hangUpAnswered(server, fake, batchJobId)
    await vi.waitFor(async () => expect((await jobStatusOf(server, batchJobId)).status).toBe('completed'), {
      timeout: 15_000,
    })
    expect((await attemptsOf(server, batchJobId)).map((attempt) => attempt.outcome)).toEqual([
      'agent_unavailable',
      'completed',
    ])
    expect((await contactsOf(server, batchJobId)).map((c) => [c.status, c.attempts])).toEqual([
      ['completed', 2],
    ])
  })

  it('fails a contact whose agent never joined on its last attempt', async () => {
    const [phone] = phonesFor(1, 3600) as [string]
    fake.scriptSip(phone, { result: 'answered', hold: true })
    const batchJobId = await createBatchJob(server, tenant, { contacts: [{ phone }], maxAttempts: 1 })
    await vi.waitFor(() => expect(fake.sipInFlight(jobRoomPrefix(batchJobId))).toBe(1), { timeout: 15_000 })
    // Still ringing when the bound passes: the room goes, which ends the dial too.
    await server.ctx.db
      .updateTable('calls')
      .set({ created_at: sql`created_at - interval '1 minute'` })
      .where('batch_job_id', '=', batchJobId)
      .execute()
    await endCallsWithoutAgent(server.ctx)
    fake.releaseSip()
    await vi.waitFor(async () => expect((await jobStatusOf(server, batchJobId)).status).toBe('completed'), {
      timeout: 15_000,
    })
    expect((await contactsOf(server, batchJobId)).map((c) => [c.status, c.last_outcome])).toEqual([
      ['failed', 'agent_unavailable'],
    ])
    expect((await attemptsOf(server, batchJobId)).map((attempt) => attempt.outcome)).toEqual([
      'agent_unavailable',
    ])
  })

  it('pauses (no new dials, the call in flight finishes) and resumes', async () => {
    const phones = phonesFor(3, 4000)
    for (const phone of phones) fake.scriptSip(phone, { result: 'answered', hold: true })
    const batchJobId = await createBatchJob(server, tenant, {
      contacts: phones.map((phone) => ({ phone })),
      concurrentCallLimit: 1,
    })
    const prefix = jobRoomPrefix(batchJobId)
    await vi.waitFor(() => expect(fake.sipInFlight(prefix)).toBe(1), { timeout: 15_000 })

    const paused = await server.request(`/batch/${batchJobId}/pause`, { method: 'POST', token: tenant.key })
    expect(paused.status).toBe(200)
    expect(((await paused.json()) as { data: { status: string } }).data.status).toBe('paused')
    fake.releaseSip()
    await vi.waitFor(async () => expect((await attemptsOf(server, batchJobId))[0]?.outcome).toBe('answered'))
    expect(await agentJoinsAnswered(server, fake, batchJobId)).toBe(1)
    await hangUpAnswered(server, fake, batchJobId)
    await vi.waitFor(async () => expect((await contactsOf(server, batchJobId))[0]?.status).toBe('completed'))
    await server.dialer?.tick()
    expect(await countAttempts(batchJobId)).toBe(1)
    expect((await jobStatusOf(server, batchJobId)).status).toBe('paused')

    const again = await server.request(`/batch/${batchJobId}/pause`, { method: 'POST', token: tenant.key })
    expect(again.status).toBe(409)
    expect(await again.json()).toEqual({ detail: expect.any(String), code: 'invalid_job_state' })

    for (const phone of phones) fake.scriptSip(phone, { result: 'answered' })
    const resumed = await server.request(`/batch/${batchJobId}/resume`, { method: 'POST', token: tenant.key })
    expect(((await resumed.json()) as { data: { status: string } }).data.status).toBe('running')
    await vi.waitFor(
      async () => {
        await hangUpAnswered(server, fake, batchJobId)
        expect((await jobStatusOf(server, batchJobId)).status).toBe('completed')
      },
      { timeout: 15_000, interval: 50 },
    )
    expect((await contactsOf(server, batchJobId)).map((c) => c.status)).toEqual([
      'completed',
      'completed',
      'completed',
    ])
  })

  it('dials a job made by POST /batch/create and honours a cancel mid-run', async () => {
    const phones = phonesFor(3, 4500)
    for (const phone of phones) fake.scriptSip(phone, { result: 'answered', hold: true })
    const created = await server.request('/batch/create', {
      method: 'POST',
      token: tenant.key,
      json: {
        fromPhoneNumberId: tenant.phoneNumberId,
        name: 'Renewals',
        concurrentCallLimit: 1,
        contacts: phones.map((phone, index) => ({ phone, name: `Caller ${index}`, plan: 'Silver' })),
      },
    })
    expect(created.status).toBe(201)
    const { batchJobId } = (await created.json()) as { batchJobId: string }
    const prefix = jobRoomPrefix(batchJobId)
    await vi.waitFor(() => expect(fake.sipInFlight(prefix)).toBe(1), { timeout: 15_000 })

    const cancelled = await server.request(`/batch/${batchJobId}/cancel`, {
      method: 'POST',
      token: tenant.key,
    })
    expect(cancelled.status).toBe(200)
    fake.releaseSip()
    await vi.waitFor(async () => expect((await attemptsOf(server, batchJobId))[0]?.outcome).toBe('answered'))
    expect(await agentJoinsAnswered(server, fake, batchJobId)).toBe(1)
    await hangUpAnswered(server, fake, batchJobId)
    await vi.waitFor(async () => expect((await contactsOf(server, batchJobId))[0]?.status).toBe('completed'))
    await server.dialer?.tick()
    expect((await contactsOf(server, batchJobId)).map((c) => c.status)).toEqual([
      'completed',
      'cancelled',
      'cancelled',
    ])
    expect(await countAttempts(batchJobId)).toBe(1)
    expect((await jobStatusOf(server, batchJobId)).status).toBe('cancelled')
    const dispatch = fake
      .callsTo('AgentDispatchService/CreateDispatch')
      .find((call) => String(call.body.room).startsWith(prefix))
    const metadata = JSON.parse(String(dispatch?.body.metadata)) as { agent: { prompt: string } }
    expect(metadata.agent.prompt).toBe('You call Caller 0 about the Silver plan, due .')

    // Dialer calls are call rows like any other: listed by GET /v1/calls with their batch job id.
    const listed = await server.request(`/v1/calls?batchJobId=${batchJobId}`, { token: tenant.key })
    expect(listed.status).toBe(200)
    const calls = ((await listed.json()) as { data: Array<Record<string, unknown>> }).data
    const [attempt] = await attemptsOf(server, batchJobId)
    expect(calls).toEqual([
      expect.objectContaining({
        id: attempt?.callId,
        direction: 'outbound',
        status: 'ended',
        endReason: 'room_finished',
        phoneNumber: phones[0],
        batchJobId,
        batchContactId: (await contactsOf(server, batchJobId))[0]?.id,
      }),
    ])
    // Billed from the later of the answer (the dial marked the callee there) and the agent's join.
    expect(calls[0]?.startedAt).not.toBe(calls[0]?.createdAt)
  })

  it('fails the job with a reason when its phone number is deleted, and retry-failed resumes it', async () => {
    const own = await setUpBatchTenant(server, { number: '+14155550111' })
    const phones = phonesFor(2, 5000)
    const deleted = await server.request(`/v1/phone-numbers/${own.phoneNumberId}`, {
      method: 'DELETE',
      token: own.key,
    })
    expect(deleted.status).toBe(200)
    // Jobs keep no foreign key to their number: this one outlived it.
    const batchJobId = await createBatchJob(server, own, { contacts: phones.map((phone) => ({ phone })) })
    await vi.waitFor(async () => expect((await jobStatusOf(server, batchJobId)).status).toBe('failed'), {
      timeout: 15_000,
    })
    expect((await jobStatusOf(server, batchJobId)).failureReason).toBe(
      'The phone number of this job was deleted',
    )
    expect((await contactsOf(server, batchJobId)).map((c) => [c.status, c.attempts])).toEqual([
      ['failed', 0],
      ['failed', 0],
    ])
    expect(await countAttempts(batchJobId)).toBe(0)

    const retried = await server.request(`/batch/${batchJobId}/retry-failed`, {
      method: 'POST',
      token: own.key,
    })
    expect(retried.status).toBe(200)
    const body = (await retried.json()) as { requeued: number; data: { status: string } }
    expect(body.requeued).toBe(2)
    expect(body.data.status).toBe('running')
    // Still no number: it fails again, and no contact was dialled.
    await vi.waitFor(async () => expect((await jobStatusOf(server, batchJobId)).status).toBe('failed'))
    for (const phone of phones) expect(fake.dialsTo(phone)).toBe(0)
  })

  it('fails the job when credits are below one average call', async () => {
    const own = await setUpBatchTenant(server, { number: '+14155550112' })
    await setBalanceMicros(server, {
      organizationId: own.organizationId,
      micros: 1000,
      reason: 'test: nearly empty',
    })
    await server.ctx.db
      .updateTable('agents')
      .set({ webhook_url: `${receiver.origin}/hooks` })
      .where('id', '=', own.agent.id)
      .execute()
    const batchJobId = await createBatchJob(server, own, { contacts: [{ phone: '+14155556001' }] })
    await vi.waitFor(async () => expect((await jobStatusOf(server, batchJobId)).status).toBe('failed'), {
      timeout: 15_000,
    })
    expect((await jobStatusOf(server, batchJobId)).failureReason).toMatch(/^Credits ran out/)
    expect(fake.dialsTo('+14155556001')).toBe(0)
    // The agent's endpoint hears batch.failed, with the reason, in the documented shape.
    const failedEvent = await vi.waitFor(
      () => {
        const found = receiver.received
          .map((request) => JSON.parse(request.body) as { event: string; data: Record<string, unknown> })
          .find((payload) => payload.event === 'batch.failed' && payload.data.batch_job_id === batchJobId)
        if (!found) throw new Error('no batch.failed yet')
        return found
      },
      { timeout: 15_000 },
    )
    const parsed = ZBatchFailedEvent.parse(failedEvent)
    expect(parsed.data).toMatchObject({ status: 'failed', total_contacts: 1, failed: 1 })
    expect(parsed.data.reason).toMatch(/^Credits ran out/)
    expect(completedEventsOf(batchJobId)).toEqual([])
  })

  it('holds each dial’s expected cost: a balance that covers three dials places three, the rest wait, and the job fails with the reason', async () => {
    const own = await setUpBatchTenant(server, { number: '+14155550114' })
    const callMicros = estimateCallMicros('pipeline')
    await setBalanceMicros(server, {
      organizationId: own.organizationId,
      micros: callMicros * 3 + callMicros / 2,
      reason: 'test: three dials',
    })
    const phones = phonesFor(8, 6100)
    for (const phone of phones) fake.scriptSip(phone, { result: 'answered', hold: true })
    const batchJobId = await createBatchJob(server, own, {
      contacts: phones.map((phone) => ({ phone })),
      concurrentCallLimit: 8,
    })
    await vi.waitFor(async () => expect((await jobStatusOf(server, batchJobId)).status).toBe('failed'), {
      timeout: 15_000,
    })
    expect((await jobStatusOf(server, batchJobId)).failureReason).toMatch(/^Credits ran out/)
    const holds = await server.ctx.db
      .selectFrom('credit_holds')
      .select(['amount_micros', 'kind'])
      .where('organization_id', '=', own.organizationId)
      .execute()
    expect(holds).toEqual(Array.from({ length: 3 }, () => ({ amount_micros: callMicros, kind: 'call' })))
    // The three held dials go out after the round (each dial's room, dispatch and SIP request).
    await vi.waitFor(() => expect(phones.filter((phone) => fake.dialsTo(phone) === 1)).toHaveLength(3), {
      timeout: 15_000,
    })
    expect(phones.reduce((dials, phone) => dials + fake.dialsTo(phone), 0)).toBe(3)
    const contacts = await contactsOf(server, batchJobId)
    expect(contacts.filter((contact) => contact.status === 'in_progress')).toHaveLength(3)

    // The three calls end: their real cost settles their holds.
    for (const phone of phones) fake.releaseSip(phone)
    await vi.waitFor(
      async () =>
        expect((await attemptsOf(server, batchJobId)).filter((a) => a.outcome === 'answered')).toHaveLength(
          3,
        ),
      { timeout: 15_000 },
    )
    await hangUpAnswered(server, fake, batchJobId)
    await vi.waitFor(async () => {
      const left = await server.ctx.db
        .selectFrom('credit_holds')
        .select('id')
        .where('organization_id', '=', own.organizationId)
        .execute()
      expect(left).toEqual([])
    })
  })

  it('fails the job, dialling no one, when its agent was made inactive after the job was created', async () => {
    const own = await setUpBatchTenant(server, { number: '+14155550113' })
    await server.ctx.db.updateTable('agents').set({ active: false }).where('id', '=', own.agent.id).execute()
    const batchJobId = await createBatchJob(server, own, { contacts: [{ phone: '+14155556002' }] })
    await vi.waitFor(async () => expect((await jobStatusOf(server, batchJobId)).status).toBe('failed'), {
      timeout: 15_000,
    })
    expect((await jobStatusOf(server, batchJobId)).failureReason).toMatch(/inactive \(agent_inactive\)/)
    expect(fake.dialsTo('+14155556002')).toBe(0)
  })

  it('answers 404 for another organization’s job', async () => {
    const other = await setUpBatchTenant(server, { number: '+14155550113' })
    const batchJobId = await createBatchJob(server, tenant, {
      contacts: [{ phone: '+14155556101' }],
      scheduledStartTime: new Date(Date.now() + 60 * 60 * 1000),
    })
    for (const action of ['pause', 'resume', 'retry-failed']) {
      const response = await server.request(`/batch/${batchJobId}/${action}`, {
        method: 'POST',
        token: other.key,
      })
      expect(response.status).toBe(404)
    }
    expect((await server.request(`/batch/${batchJobId}/events`, { token: other.key })).status).toBe(404)
  })
})
