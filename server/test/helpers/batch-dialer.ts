import type { BatchCounters, CallingWindow, RetryPolicy } from '@parley/shared'
import { ulid } from 'ulid'
import { BATCH_START_JOB } from '../../src/batch/job-names.ts'
import * as batchStore from '../../src/batch/store.ts'
import { registerPhoneNumber } from './batch.ts'
import { type FakeLiveKit, postLiveKitWebhook } from './fake-livekit.ts'
import { createTeam, makeAgent, secretKeyFor } from './organization.ts'
import type { TestServer } from './test-server.ts'

type LiveKitKeys = Pick<FakeLiveKit, 'apiKey' | 'apiSecret'>

export type BatchTenant = Awaited<ReturnType<typeof setUpBatchTenant>>

/** An organization with a secret key, a pipeline agent whose prompts use placeholders, and a number. */
export const setUpBatchTenant = async (server: TestServer, { number = '+14155550100' } = {}) => {
  const team = await createTeam(server)
  const key = await secretKeyFor(server, team.owner)
  const agent = await makeAgent(server, team.owner, {
    agentArchitecture: 'pipeline',
    systemPrompt: 'You call {{name}} about the {{plan}} plan, due {{due_date}}.',
    greetingMessage: 'Hello {{ name }}, this is Parley about your {{plan}} plan.',
  })
  const phoneNumberId = await registerPhoneNumber(server, key, {
    number,
    label: 'Outbound',
    outboundAgentId: agent.id,
    sipTrunkId: 'ST_outbound',
  })
  return { team, key, agent, phoneNumberId, organizationId: team.organizationId }
}

/** n distinct valid US numbers: +1 415 555 01xx … */
export const phonesFor = (count: number, first = 1000) =>
  Array.from({ length: count }, (_, index) => `+1415555${String(first + index).padStart(4, '0')}`)

export type JobOptions = {
  contacts: Array<{
    phone: string
    name?: string
    timeZone?: string | null
    fields?: Record<string, unknown>
  }>
  concurrentCallLimit?: number
  maxAttempts?: number
  callingWindow?: CallingWindow | null
  retryPolicy?: RetryPolicy | null
  timezone?: string
  scheduledStartTime?: Date | null
}

/**
 * A job as the create path stores and queues it (rows in one transaction, then batch.start now or
 * at its instant), so dialer tests control zones and instants exactly.
 */
export const createBatchJob = async (server: TestServer, tenant: BatchTenant, options: JobOptions) => {
  const id = ulid()
  const scheduled = options.scheduledStartTime ?? null
  await server.ctx.db.transaction().execute(async (trx) => {
    await batchStore.insertJob(trx, {
      id,
      organizationId: tenant.organizationId,
      phoneNumberId: tenant.phoneNumberId,
      agentId: tenant.agent.id,
      keyId: null,
      name: 'Dialer test',
      description: null,
      status: scheduled ? 'scheduled' : 'pending',
      concurrentCallLimit: options.concurrentCallLimit ?? 5,
      maxAttempts: options.maxAttempts ?? 3,
      scheduledStartTime: scheduled,
      timezone: options.timezone ?? 'UTC',
      callingWindow: options.callingWindow ?? null,
      retryPolicy: options.retryPolicy ?? null,
      totalContacts: options.contacts.length,
      estimatedCostMicros: options.contacts.length * 35_000,
    })
    await batchStore.insertContacts(trx, {
      batchJobId: id,
      organizationId: tenant.organizationId,
      contacts: options.contacts.map((contact, position) => ({
        id: ulid(),
        position,
        phone: contact.phone,
        name: contact.name ?? null,
        fields: contact.fields ?? {},
        timeZone: contact.timeZone ?? null,
      })),
    })
  })
  if (scheduled) await server.ctx.jobs.schedule(scheduled, BATCH_START_JOB, { batchJobId: id })
  else await server.ctx.jobs.now(BATCH_START_JOB, { batchJobId: id })
  return id
}

export const jobOf = async (server: TestServer, tenant: BatchTenant, batchJobId: string) => {
  const response = await server.request(`/batch/${batchJobId}`, { token: tenant.key })
  return ((await response.json()) as { data: { status: string; counters: BatchCounters } }).data
}

export const contactsOf = (server: TestServer, batchJobId: string) =>
  server.ctx.db
    .selectFrom('batch_contacts')
    .selectAll()
    .where('batch_job_id', '=', batchJobId)
    .orderBy('position')
    .execute()

export const attemptsOf = (server: TestServer, batchJobId: string) =>
  server.ctx.db
    .selectFrom('batch_attempts')
    .innerJoin('batch_contacts', 'batch_contacts.id', 'batch_attempts.batch_contact_id')
    .select([
      'batch_attempts.id',
      'batch_contacts.phone',
      'batch_attempts.attempt_number as attemptNumber',
      'batch_attempts.outcome',
      'batch_attempts.sip_status as sipStatus',
      'batch_attempts.call_id as callId',
      'batch_attempts.started_at as startedAt',
      'batch_attempts.finished_at as finishedAt',
    ])
    .where('batch_attempts.batch_job_id', '=', batchJobId)
    .orderBy('batch_contacts.position')
    .orderBy('batch_attempts.attempt_number')
    .execute()

export const jobStatusOf = async (server: TestServer, batchJobId: string) =>
  await server.ctx.db
    .selectFrom('batch_jobs')
    .select([
      'status',
      'failure_reason as failureReason',
      'started_at as startedAt',
      'unknown_placeholders as unknownPlaceholders',
    ])
    .where('id', '=', batchJobId)
    .executeTakeFirstOrThrow()

/** The active calls of the job whose callee answered. */
const answeredRooms = (server: TestServer, batchJobId: string) =>
  server.ctx.db
    .selectFrom('batch_attempts')
    .innerJoin('calls', 'calls.id', 'batch_attempts.call_id')
    .select('calls.room_name as roomName')
    .where('batch_attempts.batch_job_id', '=', batchJobId)
    .where('batch_attempts.outcome', '=', 'answered')
    .where('calls.status', '=', 'active')
    .execute()

/** Posts a signed LiveKit webhook, made by `eventOf`, for every answered call of the job. */
const postToAnsweredRooms = async (
  server: TestServer,
  {
    livekit,
    batchJobId,
    eventOf,
  }: { livekit: LiveKitKeys; batchJobId: string; eventOf: (roomName: string) => object },
) => {
  const live = await answeredRooms(server, batchJobId)
  for (const { roomName } of live) {
    const event = { room: { sid: `RM_${roomName}`, name: roomName }, ...eventOf(roomName) }
    const response = await postLiveKitWebhook(server.url, livekit, event)
    if (!response.ok) throw new Error(`webhook: ${response.status} ${await response.text()}`)
  }
  return live.length
}

/** The agent worker joins every answered call of the job: LiveKit's participant_joined (kind AGENT). */
export const agentJoinsAnswered = (server: TestServer, livekit: LiveKitKeys, batchJobId: string) =>
  postToAnsweredRooms(server, {
    livekit,
    batchJobId,
    eventOf: (roomName) => ({
      event: 'participant_joined',
      participant: { sid: `PA_agent_${roomName}`, identity: 'agent', kind: 'AGENT' },
    }),
  })

/**
 * Ends every answered call of the job as LiveKit does when the callee hangs up: a signed
 * room_finished webhook to POST /livekit/webhook (the calls service closes, bills and tells the
 * dialer).
 */
export const hangUpAnswered = (server: TestServer, livekit: LiveKitKeys, batchJobId: string) =>
  postToAnsweredRooms(server, { livekit, batchJobId, eventOf: () => ({ event: 'room_finished' }) })
