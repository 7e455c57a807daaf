import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import {
  attemptsOf,
  type BatchTenant,
  contactsOf,
  createBatchJob,
  hangUpAnswered,
  jobStatusOf,
  setUpBatchTenant,
} from './helpers/batch-dialer.ts'
import { createFakeClock } from './helpers/fake-clock.ts'
import { type FakeLiveKit, startFakeLiveKit } from './helpers/fake-livekit.ts'
import { readEvents } from './helpers/sse.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

// Sweeps run only when the test calls tick(): the fake clock decides, not timers. It stands after
// the real date, as contacts wait from the (real) time they were stored.
const clock = createFakeClock('2027-03-14T12:00:00Z')
let fake: FakeLiveKit
let server: TestServer
let tenant: BatchTenant

beforeAll(async () => {
  fake = await startFakeLiveKit()
  server = await startTestServer({ env: { ...fake.env, BATCH_TICK_MS: '3600000' }, clock })
  tenant = await setUpBatchTenant(server)
})
afterAll(async () => {
  await server?.destroy()
  await fake?.close()
})

/** When the queue will run the job's batch.start (the create's deferred queue entry). */
const queuedStartOf = async (batchJobId: string) => {
  const { rows } = await sql<{ nextRunAt: Date }>`
    select next_run_at as "nextRunAt" from agenda_jobs
    where name = 'batch.start' and data->>'batchJobId' = ${batchJobId}
  `.execute(server.ctx.db)
  return rows.map((row) => row.nextRunAt)
}

const tick = async () => {
  await server.dialer?.tick()
}

describe('scheduled starts and calling windows on a fake clock', () => {
  it('starts a scheduled job at its instant in its time zone, not before', async () => {
    // 09:00 in New York on the day it springs forward (2027-03-14, EDT, UTC-4) is 13:00Z.
    clock.set('2027-03-14T12:00:00Z')
    const batchJobId = await createBatchJob(server, tenant, {
      contacts: [{ phone: '+14155557001' }],
      timezone: 'America/New_York',
      scheduledStartTime: new Date('2027-03-14T13:00:00Z'),
    })
    expect(await queuedStartOf(batchJobId)).toEqual([new Date('2027-03-14T13:00:00Z')])
    clock.set('2027-03-14T12:59:59Z')
    await tick()
    expect((await jobStatusOf(server, batchJobId)).status).toBe('scheduled')
    expect(await attemptsOf(server, batchJobId)).toHaveLength(0)

    clock.set('2027-03-14T13:00:00Z')
    await tick()
    const started = await jobStatusOf(server, batchJobId)
    expect(started.status).toBe('running')
    expect(started.startedAt).toEqual(new Date('2027-03-14T13:00:00Z'))
    await vi.waitFor(async () => expect((await attemptsOf(server, batchJobId))[0]?.outcome).toBe('answered'))
    await hangUpAnswered(server, fake, batchJobId)
    await vi.waitFor(async () => expect((await jobStatusOf(server, batchJobId)).status).toBe('completed'))
  })

  it('does not dial a contact whose window is closed in its zone until it opens, and keeps its slot free', async () => {
    // Wednesday 10:00Z: 15:00 in Karachi (open), 06:00 in New York (closed until 13:00Z).
    clock.set('2027-06-09T10:00:00Z')
    const newYork = '+12125550123'
    const karachi = '+923001234567'
    const batchJobId = await createBatchJob(server, tenant, {
      contacts: [
        { phone: newYork, timeZone: 'America/New_York' },
        { phone: karachi, timeZone: 'Asia/Karachi' },
      ],
      concurrentCallLimit: 1,
      callingWindow: { start: '09:00', end: '17:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] },
    })
    await tick()
    await vi.waitFor(async () => expect(await attemptsOf(server, batchJobId)).toHaveLength(1))
    // The one slot went to Karachi although New York comes first: a closed window holds no slot.
    expect((await attemptsOf(server, batchJobId)).map((a) => a.phone)).toEqual([karachi])
    const waiting = (await contactsOf(server, batchJobId)).find((c) => c.phone === newYork)
    expect(waiting?.status).toBe('pending')
    expect(waiting?.next_attempt_at).toEqual(new Date('2027-06-09T13:00:00Z'))
    await vi.waitFor(async () => expect((await attemptsOf(server, batchJobId))[0]?.outcome).toBe('answered'))
    await hangUpAnswered(server, fake, batchJobId)
    await vi.waitFor(async () =>
      expect((await contactsOf(server, batchJobId)).find((c) => c.phone === karachi)?.status).toBe(
        'completed',
      ),
    )

    clock.set('2027-06-09T12:59:00Z')
    await tick()
    expect(await attemptsOf(server, batchJobId)).toHaveLength(1)

    clock.set('2027-06-09T13:00:00Z')
    await tick()
    await vi.waitFor(async () => expect(await attemptsOf(server, batchJobId)).toHaveLength(2))
    expect((await attemptsOf(server, batchJobId)).map((a) => a.phone)).toEqual([newYork, karachi])
    await vi.waitFor(async () => expect(await hangUpAnswered(server, fake, batchJobId)).toBe(1))
    await vi.waitFor(async () => expect((await jobStatusOf(server, batchJobId)).status).toBe('completed'))
  })

  it('streams progress as Server-Sent Events: counters after every change, then end', async () => {
    clock.set('2027-06-10T10:00:00Z')
    const batchJobId = await createBatchJob(server, tenant, {
      contacts: [{ phone: '+14155557101' }, { phone: '+14155557102' }],
      scheduledStartTime: new Date('2027-06-10T11:00:00Z'),
    })
    const response = await server.request(`/batch/${batchJobId}/events`, { token: tenant.key })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const events = readEvents(response)
    const first = await events.next()
    expect(first).toMatchObject({
      event: 'progress',
      data: {
        batchJobId,
        status: 'scheduled',
        counters: { total: 2, pending: 2, in_progress: 0, completed: 0 },
      },
    })

    clock.set('2027-06-10T11:00:00Z')
    await tick()
    const seen: Array<{ event: string; data: { status: string; counters: Record<string, number> } }> = []
    for (;;) {
      await hangUpAnswered(server, fake, batchJobId)
      const next = (await events.next()) as (typeof seen)[number] | null
      if (!next) break
      seen.push(next)
      if (next.event === 'end') break
    }
    const last = seen.at(-1)
    expect(last?.event).toBe('end')
    expect(last?.data).toMatchObject({
      status: 'completed',
      counters: { total: 2, completed: 2, pending: 0 },
    })
    expect(seen.some((event) => (event.data.counters.in_progress ?? 0) > 0)).toBe(true)
    expect(await events.next()).toBeNull()
  })
})
