import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { DO_NOT_CALL_SKIP } from '../src/batch/dialer/do-not-call.ts'
import {
  attemptsOf,
  contactsOf,
  createBatchJob,
  jobStatusOf,
  setUpBatchTenant,
} from './helpers/batch-dialer.ts'
import { setBalanceMicros } from './helpers/billing.ts'
import { type FakeLiveKit, startFakeLiveKit } from './helpers/fake-livekit.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let fake: FakeLiveKit
let server: TestServer

beforeAll(async () => {
  fake = await startFakeLiveKit()
  server = await startTestServer({ env: { ...fake.env, BATCH_TICK_MS: '50', BATCH_RETRY_BASE_MS: '10' } })
})
afterAll(async () => {
  fake?.releaseSip()
  await server?.destroy()
  await fake?.close()
})

describe('the dialer and the do-not-call list', () => {
  it('does not dial a number listed after the campaign was created: the contact ends skipped', async () => {
    const tenant = await setUpBatchTenant(server)
    await setBalanceMicros(server, {
      organizationId: tenant.organizationId,
      micros: 100_000_000,
      reason: 'test',
    })
    const listed = '+14155550231'
    const free = '+14155550232'
    fake.scriptSip(free, { result: 'busy' })
    // The job is stored as create stores it, then the number is listed before the dialer claims it.
    const added = await server.request('/v1/do-not-call', {
      method: 'POST',
      token: tenant.key,
      json: { phoneNumber: listed },
    })
    expect(added.status).toBe(201)
    const batchJobId = await createBatchJob(server, tenant, {
      contacts: [{ phone: listed }, { phone: free }],
      maxAttempts: 1,
    })
    await vi.waitFor(async () => expect((await jobStatusOf(server, batchJobId)).status).toBe('completed'), {
      timeout: 30_000,
    })
    expect(fake.dialsTo(listed)).toBe(0)
    expect(fake.dialsTo(free)).toBe(1)
    const [skipped, dialled] = await contactsOf(server, batchJobId)
    expect(skipped).toMatchObject({
      phone: listed,
      status: 'cancelled',
      attempts: 0,
      last_error: DO_NOT_CALL_SKIP,
    })
    expect(dialled).toMatchObject({ phone: free, status: 'failed', attempts: 1 })
    expect((await attemptsOf(server, batchJobId)).map((attempt) => attempt.phone)).toEqual([free])
  })
})
