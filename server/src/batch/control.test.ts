import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBatchJson, createBatchTenant, validPhones } from '../../test/helpers/batch.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

let server: TestServer
let tenant: Awaited<ReturnType<typeof createBatchTenant>>
let other: Awaited<ReturnType<typeof createBatchTenant>>

// ROLE=api: no worker takes the queued jobs; the tests move contacts as the dialer would.
beforeAll(async () => {
  server = await startTestServer({ env: { ROLE: 'api' } })
  tenant = await createBatchTenant(server)
  other = await createBatchTenant(server)
})
afterAll(() => server?.destroy())

const get = (path: string, key = tenant.key) => server.request(path, { token: key })
const post = (path: string, key = tenant.key) => server.request(path, { method: 'POST', token: key })

const createJob = async (count: number, extra: Record<string, unknown> = {}) => {
  const response = await createBatchJson(server, tenant.key, {
    fromPhoneNumberId: tenant.phoneNumberId,
    name: `Job of ${count}`,
    contacts: validPhones(count).map((phone, i) => ({ phone, name: `P${i}`, ref: String(i) })),
    ...extra,
  })
  if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { batchJobId: string }).batchJobId
}

/** What the dialer does to a contact: claim it (in_progress) or end it. */
const setContactStatus = (batchJobId: string, position: number, status: string, extra = sql``) =>
  sql`update batch_contacts set status = ${status}, attempts = attempts + 1 ${extra}
      where batch_job_id = ${batchJobId} and position = ${position}`.execute(server.ctx.db)

describe('batch job control', () => {
  it('lists jobs newest first, filtered by status and paginated', async () => {
    const first = await createJob(1)
    const scheduled = await createJob(2, { scheduledStartTime: '2031-01-01T00:00:00Z' })
    const all = await (await get('/batch?limit=1')).json()
    expect(all.success).toBe(true)
    expect(all.data.map((job: { id: string }) => job.id)).toEqual([scheduled])
    expect(all.pagination).toEqual({ page: 1, total: 2, hasNext: true })
    const pending = await (await get('/batch?status=pending')).json()
    expect(pending.data.map((job: { id: string }) => job.id)).toEqual([first])
    expect(pending.data[0].counters).toEqual({
      total: 1,
      pending: 1,
      in_progress: 0,
      completed: 0,
      failed: 0,
      cancelled: 0,
    })
    expect((await get('/batch?status=paused')).status).toBe(200)
    expect((await get('/batch?status=asleep')).status).toBe(400)
  })

  it('shows a job with its counters, failure reason, placeholders and window', async () => {
    const id = await createJob(4, { callingWindow: { start: '09:00', end: '17:00', days: ['mon'] } })
    await setContactStatus(id, 0, 'completed', sql`, call_id = 'call_1', last_outcome = 'completed'`)
    await setContactStatus(id, 1, 'failed', sql`, last_error = 'busy', last_outcome = 'busy'`)
    await setContactStatus(id, 2, 'in_progress')
    const response = await get(`/batch/${id}`)
    expect(response.status).toBe(200)
    const { data } = await response.json()
    expect(data).toMatchObject({
      id,
      name: 'Job of 4',
      status: 'pending',
      phoneNumberId: tenant.phoneNumberId,
      agentId: tenant.agent.id,
      concurrentCallLimit: 5,
      maxAttempts: 3,
      timezone: 'UTC',
      callingWindow: { start: '09:00', end: '17:00', days: ['mon'] },
      totalContacts: 4,
      estimatedCost: '0.14',
      failureReason: null,
      unknownPlaceholders: [],
      counters: { total: 4, pending: 1, in_progress: 1, completed: 1, failed: 1, cancelled: 0 },
      startedAt: null,
      finishedAt: null,
    })
  })

  it('lists contacts in file order with status, attempts, last error, call id and fields', async () => {
    const id = await createJob(3)
    await setContactStatus(id, 1, 'failed', sql`, last_error = 'SIP 486 busy', call_id = 'call_9'`)
    const page = await (await get(`/batch/${id}/contacts?limit=2`)).json()
    expect(page.pagination).toEqual({ page: 1, total: 3, hasNext: true })
    expect(page.data.map((c: { phone: string }) => c.phone)).toEqual(validPhones(2))
    expect(page.data[1]).toMatchObject({
      position: 1,
      name: 'P1',
      fields: { ref: '1' },
      status: 'failed',
      attempts: 1,
      lastError: 'SIP 486 busy',
      callId: 'call_9',
    })
    const failed = await (await get(`/batch/${id}/contacts?status=failed`)).json()
    expect(failed.data.map((c: { position: number }) => c.position)).toEqual([1])
  })

  it('cancels a job: waiting contacts cancelled, in-flight ones left to finish; a second cancel is 409', async () => {
    const id = await createJob(3)
    await setContactStatus(id, 0, 'in_progress')
    await setContactStatus(id, 1, 'completed')
    const response = await post(`/batch/${id}/cancel`)
    expect(response.status).toBe(200)
    const { data } = await response.json()
    expect(data.status).toBe('cancelled')
    expect(data.finishedAt).toEqual(expect.any(String))
    expect(data.counters).toMatchObject({ in_progress: 1, completed: 1, cancelled: 1, pending: 0 })

    const again = await post(`/batch/${id}/cancel`)
    expect(again.status).toBe(409)
    expect(await again.json()).toEqual({
      detail: 'Batch job is already cancelled',
      code: 'invalid_job_state',
    })
  })

  it('cancels scheduled and paused jobs too', async () => {
    const scheduled = await createJob(1, { scheduledStartTime: '2031-01-01T00:00:00Z' })
    expect((await post(`/batch/${scheduled}/cancel`)).status).toBe(200)
    const paused = await createJob(1)
    await sql`update batch_jobs set status = 'paused' where id = ${paused}`.execute(server.ctx.db)
    expect((await post(`/batch/${paused}/cancel`)).status).toBe(200)
    const done = await createJob(1)
    await sql`update batch_jobs set status = 'completed' where id = ${done}`.execute(server.ctx.db)
    expect((await post(`/batch/${done}/cancel`)).status).toBe(409)
  })

  it("answers 404 for another organization's job on every control route", async () => {
    const id = await createJob(1)
    for (const response of [
      await get(`/batch/${id}`, other.key),
      await get(`/batch/${id}/contacts`, other.key),
      await post(`/batch/${id}/cancel`, other.key),
      await get('/batch/01J00000000000000000000000'),
    ]) {
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ detail: 'Batch job not found', code: 'not_found' })
    }
    const theirs = await (await get('/batch', other.key)).json()
    expect(theirs.data).toEqual([])
  })
})
