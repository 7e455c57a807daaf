import { cpus, loadavg } from 'node:os'
import * as attemptStore from '../server/src/batch/dialer/attempt-store.ts'
import * as dialerStore from '../server/src/batch/dialer/store.ts'
import { closeCall, openCalls } from '../server/src/calls/service.ts'
import { aliveAfter } from '../server/src/instances/liveness.ts'
import { type RunningServer, start } from '../server/src/server.ts'
import { startFakeLiveKit } from '../server/test/helpers/fake-livekit.ts'
import { benchConfig } from './bench-config.ts'
import { callJson, prepareBatchTenant } from './bench-tenant.ts'
import { percentile } from './stats.ts'

const CONTACTS = Number(process.env.BENCH_DIAL_CONTACTS ?? 1000)
const CONCURRENCY = 50
const LIVEKIT_SAMPLES = 200
const BOOKKEEPING_CONTACTS = 500

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length)
/** Milliseconds of the three LiveKit requests of one dial (room, dispatch, SIP), as the dialer makes them. */
const measureLiveKitPerDial = async (server: RunningServer) => {
  const livekit = server.ctx.livekit
  if (!livekit) throw new Error('LiveKit is not configured')
  const started = performance.now()
  for (let i = 0; i < LIVEKIT_SAMPLES; i++) {
    const roomName = `bench-probe-${i}`
    await livekit.createRoom({ name: roomName, emptyTimeoutSeconds: 30, metadata: '{}' })
    await livekit.dispatchAgent({ roomName, metadata: '{}' })
    await livekit.dialSip({ trunkId: 'ST_bench', number: '+14155559999', roomName, identity: 'probe' })
  }
  return (performance.now() - started) / LIVEKIT_SAMPLES
}

/**
 * The dialer's own database work for one contact, back to back on one job, one contact at a time
 * (the dialer does each of these for a round's or a moment's contacts together): the claim
 * transaction (job row locked, then count, contact and attempt rows in one statement), the call
 * row, the tie to it, the answer and the completion the close makes (without the close itself).
 */
const measureBookkeepingPerContact = async (
  server: RunningServer,
  { key, phoneNumberId }: { key: string; phoneNumberId: string },
) => {
  const contacts = Array.from({ length: BOOKKEEPING_CONTACTS }, (_, i) => ({
    phone: `+1415${String(4_000_000 + i).padStart(7, '0')}`,
  }))
  const created = await callJson(`${server.url}/batch/create`, {
    method: 'POST',
    token: key,
    json: {
      fromPhoneNumberId: phoneNumberId,
      name: 'Bookkeeping bench',
      concurrentCallLimit: 1,
      scheduledStartTime: new Date(Date.now() + 3_600_000).toISOString(),
      contacts,
    },
  })
  const jobId = created.batchJobId as string
  const db = server.ctx.db
  // Alone: the server's own dialer would otherwise claim this job's contacts too.
  await server.dialer?.stop()
  await db.updateTable('batch_jobs').set({ status: 'running' }).where('id', '=', jobId).execute()
  const { organizationId, agentId } = await db
    .selectFrom('batch_jobs')
    .select(['organization_id as organizationId', 'agent_id as agentId'])
    .where('id', '=', jobId)
    .executeTakeFirstOrThrow()
  const started = performance.now()
  for (let i = 0; i < BOOKKEEPING_CONTACTS; i++) {
    const now = new Date()
    const [claim] = await dialerStore.claimContacts(db, {
      jobId,
      now,
      instanceId: server.ctx.instanceId,
      scanFactor: 1,
      choose: (candidates) => ({ claim: candidates.slice(0, 1).map(({ id }) => id), defer: [] }),
    })
    if (!claim) throw new Error('nothing to claim')
    const [callId = ''] = await openCalls(server.ctx, [
      {
        organizationId,
        agentId,
        roomName: `bench-room-${jobId}-${i}`,
        architecture: 'pipeline',
        direction: 'outbound',
        batchJobId: jobId,
        batchContactId: claim.contactId,
      },
    ])
    await attemptStore.tieAttemptsToCalls(db, [{ attemptId: claim.attemptId, callId }])
    await attemptStore.recordAnswers(db, { answers: [{ attemptId: claim.attemptId, callId }], now })
    await attemptStore.completeAttemptsOfClosedCalls(db, {
      calls: [{ callId, contactId: claim.contactId, outcome: 'completed' }],
      now,
      aliveAfter: aliveAfter(server.ctx),
    })
  }
  const perContact = (performance.now() - started) / BOOKKEEPING_CONTACTS
  await db.updateTable('batch_jobs').set({ status: 'cancelled' }).where('id', '=', jobId).execute()
  return perContact
}

/**
 * Part (b): dial throughput with instant calls. The fake LiveKit answers every dial at once and
 * each call is hung up as soon as its SIP request arrives (as LiveKit's room_finished would end
 * it). Printed beside it: where a slot's time per contact goes (LiveKit's requests measured
 * alone, the calls service's close with its billing) and the scheduler overhead per contact, the
 * dialer's own database work measured alone.
 */
export const benchDialThroughput = async () => {
  const fake = await startFakeLiveKit()
  const { config, removeDataDir } = benchConfig({ ...fake.env, LOG_LEVEL: 'silent' })
  const server = await start({ config })
  try {
    const { key, phoneNumberId } = await prepareBatchTenant(server, {
      adminToken: config.adminToken,
      label: 'Dial bench',
    })
    const liveKitMs = await measureLiveKitPerDial(server)

    // Hang up each dial as its SIP request arrives: a cursor over the fake's request log, so a
    // pass looks only at the requests since the last one (filtering the whole log every
    // millisecond grew with the log, in the process whose CPU the dialer is measured on).
    let seen = fake.calls.length
    const closeMs: number[] = []
    const closes = new Set<Promise<unknown>>()
    const hangUp = setInterval(() => {
      for (; seen < fake.calls.length; seen++) {
        const dial = fake.calls[seen]
        if (dial?.method !== 'SIP/CreateSIPParticipant') continue
        const roomName = String(dial.body.room_name ?? dial.body.roomName)
        const closeStarted = performance.now()
        const closing = closeCall(server.ctx, { roomName, reason: 'hangup' }).then(() => {
          closeMs.push(performance.now() - closeStarted)
        })
        closes.add(closing)
        void closing.finally(() => closes.delete(closing))
      }
    }, 1)

    const contacts = Array.from({ length: CONTACTS }, (_, i) => ({
      phone: `+1415${String(3_000_000 + i).padStart(7, '0')}`,
      name: `Person ${i}`,
      plan: 'gold',
    }))
    const started = performance.now()
    const created = await callJson(`${server.url}/batch/create`, {
      method: 'POST',
      token: key,
      json: {
        fromPhoneNumberId: phoneNumberId,
        name: 'Dial bench',
        concurrentCallLimit: CONCURRENCY,
        contacts,
      },
    })
    const batchJobId = created.batchJobId as string
    const finished = await new Promise<number>((resolve, reject) => {
      const check = async () => {
        const job = await callJson(`${server.url}/batch/${batchJobId}`, { token: key })
        const { status, counters } = job.data as { status: string; counters: Record<string, number> }
        if (process.env.BENCH_DEBUG)
          process.stdout.write(`${(performance.now() - started).toFixed(0)} ${JSON.stringify(counters)}\n`)
        if (status === 'running' || status === 'pending') return setTimeout(() => check().catch(reject), 50)
        if (counters.completed !== CONTACTS) throw new Error(`job ${status}: ${JSON.stringify(counters)}`)
        resolve(performance.now())
      }
      check().catch(reject)
    })
    clearInterval(hangUp)
    await Promise.allSettled([...closes])

    const bookkeepingMs = await measureBookkeepingPerContact(server, { key, phoneNumberId })
    const seconds = (finished - started) / 1000
    const perSecond = CONTACTS / seconds
    const slotMsPerContact = (CONCURRENCY * (finished - started)) / CONTACTS
    return [
      `batch (b) dial throughput, ${CONTACTS.toLocaleString('en-US')} contacts at concurrency ${CONCURRENCY}, instant fake calls, ${config.databaseUrl ? 'PostgreSQL' : 'embedded PGlite'}, load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} CPUs`,
      `  ${perSecond.toFixed(0)} contacts/s (${seconds.toFixed(2)} s from create to completed; target ≥ 200: ${perSecond >= 200 ? 'met' : 'NOT met'})`,
      `  per contact: ${slotMsPerContact.toFixed(1)} ms of a slot, of which LiveKit's three requests ${liveKitMs.toFixed(1)} ms (measured alone)`,
      `  of the rest, closing a call (calls service: billing on the organization's balance row) took ${mean(closeMs).toFixed(1)} ms on average (p90 ${percentile(closeMs, 90).toFixed(1)} ms)`,
      `  scheduler overhead per contact: ${bookkeepingMs.toFixed(2)} ms (claim, call row, tie, answered, completed; ${BOOKKEEPING_CONTACTS} contacts back to back, one at a time, no LiveKit, no billing)`,
    ]
  } finally {
    await server.stop()
    await fake.close()
    removeDataDir()
  }
}
