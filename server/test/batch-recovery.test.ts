import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import * as attemptStore from '../src/batch/dialer/attempt-store.ts'
import { roomNameFor } from '../src/batch/dialer/dial-contact.ts'
import * as dialerStore from '../src/batch/dialer/store.ts'
import { openCall } from '../src/calls/service.ts'
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
import { startTestServer, type TestServer } from './helpers/test-server.ts'

// No sweep runs unless the test calls tick(): the "crashed worker" below claims undisturbed. Claims
// are never old enough to be stale (an hour): what gives them away is their instance's silence.
let fake: FakeLiveKit
let server: TestServer
let tenant: BatchTenant

beforeAll(async () => {
  fake = await startFakeLiveKit()
  server = await startTestServer({
    env: { ...fake.env, BATCH_TICK_MS: '3600000', BATCH_STALE_CLAIM_MS: '3600000' },
  })
  tenant = await setUpBatchTenant(server)
})
afterAll(async () => {
  await server?.destroy()
  await fake?.close()
})

describe('claims of a worker that stopped before dialling', () => {
  it('are released, their orphan call closed, and each contact dialled once afterwards', async () => {
    const [afterCallRow, afterClaim] = phonesFor(2, 8000) as [string, string]
    const batchJobId = await createBatchJob(server, tenant, {
      contacts: [{ phone: afterCallRow }, { phone: afterClaim }],
      scheduledStartTime: new Date(Date.now() + 3_600_000),
    })
    await server.ctx.db
      .updateTable('batch_jobs')
      .set({ status: 'running' })
      .where('id', '=', batchJobId)
      .execute()

    // A worker claims both, opens the first one's call row, and dies before tying it to the attempt
    // (an instance that never beat, as one whose heartbeat stopped).
    const claimed = await dialerStore.claimContacts(server.ctx.db, {
      jobId: batchJobId,
      now: new Date(),
      instanceId: 'crashed-instance',
      scanFactor: 1,
      choose: (candidates) => ({ claim: candidates.map(({ id }) => id), defer: [] }),
    })
    expect(claimed).toHaveLength(2)
    const first = claimed.find((contact) => contact.phone === afterCallRow)
    if (!first) throw new Error('no claim for the first contact')
    const orphanRoom = roomNameFor({ jobId: batchJobId, attemptId: first.attemptId })
    await openCall(server.ctx, {
      organizationId: tenant.organizationId,
      agentId: tenant.agent.id,
      roomName: orphanRoom,
      architecture: 'pipeline',
      direction: 'outbound',
      phoneNumber: afterCallRow,
      batchJobId,
      batchContactId: first.contactId,
    })
    await server.dialer?.tick()
    // The dead worker, were it alive after all, could no longer dial: its tie is refused.
    expect(
      await attemptStore.tieAttemptToCall(server.ctx.db, { attemptId: first.attemptId, callId: 'late' }),
    ).toBe(false)
    const orphan = await server.ctx.db
      .selectFrom('calls')
      .select(['status', 'end_reason'])
      .where('room_name', '=', orphanRoom)
      .executeTakeFirstOrThrow()
    expect(orphan).toEqual({ status: 'failed', end_reason: 'claim_released' })

    await vi.waitFor(
      async () => {
        await hangUpAnswered(server, fake, batchJobId)
        expect((await jobStatusOf(server, batchJobId)).status).toBe('completed')
      },
      { timeout: 15_000, interval: 50 },
    )
    const attempts = await attemptsOf(server, batchJobId)
    expect(attempts.map((a) => [a.phone, a.attemptNumber, a.outcome])).toEqual([
      [afterCallRow, 1, 'completed'],
      [afterClaim, 1, 'completed'],
    ])
    expect(attempts.map((a) => a.id)).not.toContain(first.attemptId)
    expect((await contactsOf(server, batchJobId)).map((c) => [c.status, c.attempts])).toEqual([
      ['completed', 1],
      ['completed', 1],
    ])
    expect([fake.dialsTo(afterCallRow), fake.dialsTo(afterClaim)]).toEqual([1, 1])
  })
})
