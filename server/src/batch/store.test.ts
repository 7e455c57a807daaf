import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTeam } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { newUlid } from '../crypto/ids.ts'
import * as store from './store.ts'

let server: TestServer
let organizationId: string

beforeAll(async () => {
  // No dialer: it would start or fail this file's pending jobs (their agents and numbers are
  // made up) while a test moves them itself.
  server = await startTestServer({ env: { ROLE: 'api' } })
  organizationId = (await createTeam(server)).organizationId
})
afterAll(() => server?.destroy())

const newJob = (overrides: Partial<store.NewBatchJob> = {}): store.NewBatchJob => ({
  id: newUlid(),
  organizationId,
  phoneNumberId: newUlid(),
  agentId: newUlid(),
  keyId: null,
  name: 'Store job',
  description: null,
  status: 'pending',
  concurrentCallLimit: 5,
  maxAttempts: 3,
  scheduledStartTime: null,
  timezone: 'UTC',
  callingWindow: { start: '09:00', end: '17:00', days: ['mon', 'tue'] },
  retryPolicy: null,
  totalContacts: 3,
  estimatedCostMicros: 105_000,
  ...overrides,
})

describe('batch store', () => {
  it('stores a job with its contacts in position order and counts them by status', async () => {
    const job = await store.insertJob(server.ctx.db, newJob())
    const contacts = ['+14155550101', '+14155550102', '+14155550103'].map((phone, position) => ({
      id: newUlid(),
      position,
      phone,
      name: position === 0 ? 'Ada' : null,
      fields: { plan: 'gold', visits: '3' },
      timeZone: position === 0 ? 'America/Los_Angeles' : null,
    }))
    await store.insertContacts(server.ctx.db, { batchJobId: job.id, organizationId, contacts })

    const listed = await store.listContacts(server.ctx.db, { batchJobId: job.id, offset: 0, limit: 10 })
    expect(listed.total).toBe(3)
    expect(listed.contacts.map((c) => c.phone)).toEqual(contacts.map((c) => c.phone))
    expect(listed.contacts[0]).toMatchObject({
      name: 'Ada',
      fields: { plan: 'gold', visits: '3' },
      timeZone: 'America/Los_Angeles',
      status: 'pending',
      attempts: 0,
    })
    expect(job.callingWindow).toEqual({ start: '09:00', end: '17:00', days: ['mon', 'tue'] })
    expect(job.unknownPlaceholders).toEqual([])
    expect(await store.countContacts(server.ctx.db, job.id)).toEqual({
      total: 3,
      pending: 3,
      in_progress: 0,
      completed: 0,
      failed: 0,
      cancelled: 0,
    })
  })

  it('moves a job only from the given statuses and cancels the waiting contacts', async () => {
    const job = await store.insertJob(server.ctx.db, newJob())
    await store.insertContacts(server.ctx.db, {
      batchJobId: job.id,
      organizationId,
      contacts: [
        { id: newUlid(), position: 0, phone: '+14155550199', name: null, fields: {}, timeZone: null },
      ],
    })
    expect(
      await store.transitionJob(server.ctx.db, { id: job.id, from: ['running'], to: 'paused' }),
    ).toBeUndefined()
    const cancelled = await store.transitionJob(server.ctx.db, {
      id: job.id,
      from: ['pending'],
      to: 'cancelled',
    })
    expect(cancelled?.status).toBe('cancelled')
    expect(cancelled?.finishedAt).toBeInstanceOf(Date)
    expect(await store.cancelWaitingContacts(server.ctx.db, job.id)).toBe(1)
  })
})
