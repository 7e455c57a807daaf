import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { jobRoomPrefix, roomNameFor } from '../src/batch/dialer/dial-contact.ts'
import { LOST_DIAL_ERROR } from '../src/batch/dialer/recover.ts'
import {
  attemptsOf,
  type BatchTenant,
  contactsOf,
  createBatchJob,
  hangUpAnswered,
  jobStatusOf,
  phonesFor,
  setUpBatchTenant,
} from './helpers/batch-dialer.ts'
import { type FakeLiveKit, startFakeLiveKit } from './helpers/fake-livekit.ts'
import { spawnWorker, type WorkerProcess } from './helpers/spawn-worker.ts'
import { canRunTwoInstances, startTestServer, type TestServer } from './helpers/test-server.ts'

/** A worker in another process needs a database server; the embedded PGlite is single-process. */
const canSpawnWorkers = Boolean(process.env.TEST_DATABASE_URL)

// Claims are never stale by age here (an hour): a killed worker is found out by its silence, three
// missed heartbeats of 100 ms.
const dialerEnv = {
  BATCH_TICK_MS: '50',
  BATCH_RETRY_BASE_MS: '10',
  BATCH_STALE_CLAIM_MS: '3600000',
  INSTANCE_HEARTBEAT_MS: '100',
  // No agent joins these calls (the file is about workers, not agents): without this, a call
  // kept waiting past the 15 s default on a slow machine ends agent_unavailable and is redialled.
  AGENT_JOIN_TIMEOUT_SECONDS: '3600',
}
let fake: FakeLiveKit
let server: TestServer
let second: TestServer
let tenant: BatchTenant
const workers: WorkerProcess[] = []

beforeAll(async () => {
  fake = await startFakeLiveKit()
  server = await startTestServer({ env: { ...fake.env, ...dialerEnv } })
  // Without PostgreSQL and Redis to share, the "second worker" is the same instance.
  second = canRunTwoInstances
    ? await startTestServer({ shareDatabaseWith: server, env: { ...fake.env, ...dialerEnv, ROLE: 'worker' } })
    : server
  tenant = await setUpBatchTenant(server)
})
afterAll(async () => {
  fake?.releaseSip()
  for (const worker of workers) await worker.kill()
  if (second !== server) await second?.destroy()
  await server?.destroy()
  await fake?.close()
})

describe('dialing from several workers', () => {
  it('keeps a job within concurrentCallLimit across two workers sharing the database', async () => {
    expect(second !== server).toBe(canRunTwoInstances)
    const phones = phonesFor(9, 6000)
    for (const phone of phones) fake.scriptSip(phone, { result: 'answered', hold: true })
    const batchJobId = await createBatchJob(server, tenant, {
      contacts: phones.map((phone) => ({ phone })),
      concurrentCallLimit: 3,
    })
    const prefix = jobRoomPrefix(batchJobId)
    for (let done = 0; done < phones.length; done += 3) {
      await vi.waitFor(() => expect(fake.sipInFlight(prefix)).toBe(3), { timeout: 15_000 })
      // Both workers sweep at once; neither finds a free slot.
      await Promise.all([server.dialer?.tick(), second.dialer?.tick()])
      expect(await attemptsOf(server, batchJobId)).toHaveLength(done + 3)
      fake.releaseSip()
      await vi.waitFor(
        async () =>
          expect((await attemptsOf(server, batchJobId)).filter((a) => a.outcome === 'answered')).toHaveLength(
            3,
          ),
        { timeout: 15_000 },
      )
      await Promise.all([server.dialer?.tick(), second.dialer?.tick()])
      expect(await attemptsOf(server, batchJobId)).toHaveLength(done + 3)
      await hangUpAnswered(server, fake, batchJobId)
    }
    await vi.waitFor(async () => expect((await jobStatusOf(server, batchJobId)).status).toBe('completed'), {
      timeout: 15_000,
    })
    expect(fake.maxSipInFlight(prefix)).toBe(3)
    for (const phone of phones) expect(fake.dialsTo(phone)).toBe(1)
  })

  it.skipIf(!canSpawnWorkers)(
    'loses no contact and dials none twice when a worker process is killed mid-job (needs TEST_DATABASE_URL: not applicable on the single-process embedded PGlite)',
    async () => {
      // This server only serves and settles calls; the dialing happens in the spawned processes.
      const api = await startTestServer({
        shareDatabaseWith: server,
        env: { ...fake.env, ...dialerEnv, ROLE: 'api' },
      })
      try {
        const phones = phonesFor(12, 7000)
        const [live1, live2, ringing1, ringing2] = phones as [string, string, string, string]
        for (const phone of phones) fake.scriptSip(phone, { result: 'answered' })
        fake.scriptSip(ringing1, { result: 'answered', hold: true })
        fake.scriptSip(ringing2, { result: 'answered', hold: true })
        // The in-process workers stay out of it: only the spawned ones may take this job.
        await server.dialer?.stop()
        if (second !== server) await second.dialer?.stop()

        const first = await spawnWorker(server, dialerEnv)
        workers.push(first)
        const batchJobId = await createBatchJob(api, tenant, {
          contacts: phones.map((phone) => ({ phone })),
          concurrentCallLimit: 4,
        })
        const prefix = jobRoomPrefix(batchJobId)
        // Four slots: two answered calls live, two dials ringing; nothing else can be claimed.
        await vi.waitFor(
          async () => {
            expect(
              (await attemptsOf(server, batchJobId)).filter((a) => a.outcome === 'answered'),
            ).toHaveLength(2)
            expect(fake.sipInFlight(prefix)).toBe(2)
          },
          { timeout: 30_000 },
        )
        await first.kill()

        // LiveKit carries on without the worker: the ringing phones are answered, and later their
        // rooms end. The live calls end when the callees hang up.
        fake.releaseSip()
        const replacement = await spawnWorker(server, dialerEnv)
        workers.push(replacement)
        await hangUpAnswered(api, fake, batchJobId)
        const attempts = await attemptsOf(server, batchJobId)
        const lost = attempts.filter((a) => a.phone === ringing1 || a.phone === ringing2)
        for (const attempt of lost) fake.vanishRoom(roomNameFor({ jobId: batchJobId, attemptId: attempt.id }))
        await vi.waitFor(
          async () => {
            await hangUpAnswered(api, fake, batchJobId)
            expect((await jobStatusOf(server, batchJobId)).status).toBe('completed')
          },
          { timeout: 60_000, interval: 100 },
        )

        const contacts = await contactsOf(server, batchJobId)
        const expected = phones.map((phone) =>
          phone === ringing1 || phone === ringing2 ? ['failed', 1, LOST_DIAL_ERROR] : ['completed', 1, null],
        )
        expect(contacts.map((c) => [c.status, c.attempts, c.last_error])).toEqual(expected)
        expect((await attemptsOf(server, batchJobId)).length).toBe(phones.length)
        for (const phone of phones) expect(fake.dialsTo(phone)).toBe(1)
        expect([live1, live2].map((phone) => fake.dialsTo(phone))).toEqual([1, 1])
      } finally {
        await api.destroy()
      }
    },
    // Two worker processes start here, each a full server: a busy machine needs more than the
    // default 30 s for that, and the waits above allow up to 90 s.
    120_000,
  )
})
