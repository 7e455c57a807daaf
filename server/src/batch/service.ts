import type { BatchJobStatus, ListBatchContactsQuery, ListBatchJobsQuery } from '@parley/shared'
import * as agentStore from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { pageWindow, paginationOf } from '../http/pagination.ts'
import { notifyAgent } from '../webhooks/index.ts'
import { toBatchContact, toBatchJob } from './present.ts'
import * as store from './store.ts'

/** Tells dashboards and every worker's dialer (through Redis when there are several instances). */
export const announceJobChange = (ctx: AppContext, batchJobId: string) =>
  ctx.signals.publish('batch.changed', { batchJobId })

/**
 * `batch.completed` to the job's agent's endpoint (when it subscribes), with the job's outcome
 * counts. The job is completed either way; a failure to queue is logged with the job to redo it.
 */
export const sendBatchCompleted = (ctx: AppContext, batchJobId: string) =>
  sendBatchOutcome(ctx, batchJobId, 'batch.completed')

/** `batch.failed` once a job has failed for good, with its reason and counts (as batch.completed). */
export const sendBatchFailed = (ctx: AppContext, batchJobId: string) =>
  sendBatchOutcome(ctx, batchJobId, 'batch.failed')

const sendBatchOutcome = async (
  ctx: AppContext,
  batchJobId: string,
  event: 'batch.completed' | 'batch.failed',
) => {
  try {
    const job = await store.findJobById(ctx.db, batchJobId)
    if (!job) return
    const agent = await agentStore.findAgent(ctx.db, { organizationId: job.organizationId, id: job.agentId })
    if (!agent) return
    const counters = await store.countContacts(ctx.db, job.id)
    await notifyAgent(ctx, agent, event, {
      batch_job_id: job.id,
      name: job.name,
      agent_id: job.agentId,
      status: job.status,
      ...(event === 'batch.failed' ? { reason: job.failureReason ?? 'unknown' } : {}),
      total_contacts: counters.total,
      completed: counters.completed,
      failed: counters.failed,
      cancelled: counters.cancelled,
      started_at: job.startedAt?.toISOString() ?? null,
      finished_at: job.finishedAt?.toISOString() ?? null,
    })
  } catch (error) {
    ctx.logger.error({ err: error, batchJobId }, `could not queue the ${event} webhook`)
  }
}

/** Another organization's job answers 404, like one that does not exist. */
export const requireJob = async (ctx: AppContext, organizationId: string, batchJobId: string) => {
  const job = await store.findJob(ctx.db, { organizationId, id: batchJobId })
  if (!job) throw AppError.notFound('batch job')
  return job
}

export const listBatchJobs = async (ctx: AppContext, organizationId: string, query: ListBatchJobsQuery) => {
  const { jobs, total } = await store.listJobs(ctx.db, {
    organizationId,
    ...(query.status ? { status: query.status } : {}),
    ...pageWindow(query),
  })
  const ids = jobs.map((job) => job.id)
  const [counters, outcomes] = await Promise.all([
    store.countContactsByJob(ctx.db, ids),
    store.countOutcomesByJob(ctx.db, ids),
  ])
  return {
    data: jobs.map((job) =>
      toBatchJob(job, counters.get(job.id) ?? store.emptyCounters(), outcomes.get(job.id) ?? {}),
    ),
    pagination: paginationOf(query, total),
  }
}

export const getBatchJob = async (ctx: AppContext, organizationId: string, batchJobId: string) => {
  const job = await requireJob(ctx, organizationId, batchJobId)
  return toBatchJob(job, await store.countContacts(ctx.db, job.id), await store.countOutcomes(ctx.db, job.id))
}

export const listBatchContacts = async (
  ctx: AppContext,
  organizationId: string,
  { batchJobId, query }: { batchJobId: string; query: ListBatchContactsQuery },
) => {
  await requireJob(ctx, organizationId, batchJobId)
  const { contacts, total } = await store.listContacts(ctx.db, {
    batchJobId,
    ...(query.status ? { status: query.status } : {}),
    ...pageWindow(query),
  })
  const tries = await store.listTriesOfContacts(
    ctx.db,
    contacts.map((contact) => contact.id),
  )
  return {
    data: contacts.map((contact) => toBatchContact(contact, tries.get(contact.id) ?? [])),
    pagination: paginationOf(query, total),
  }
}

const CANCELLABLE: BatchJobStatus[] = ['pending', 'scheduled', 'running', 'paused']

/**
 * Cancels a job that has not finished: no new dials (contacts waiting for one are cancelled in the
 * same transaction); calls already in flight finish and their contacts end as their call does.
 * The status guard in the UPDATE makes a cancel racing the dialer's completion answer 409.
 */
export const cancelBatchJob = async (ctx: AppContext, organizationId: string, batchJobId: string) => {
  const before = await requireJob(ctx, organizationId, batchJobId)
  const cancelled = await ctx.db.transaction().execute(async (tx) => {
    const job = await store.transitionJob(tx, { id: before.id, from: CANCELLABLE, to: 'cancelled' })
    if (job) await store.cancelWaitingContacts(tx, job.id)
    return job
  })
  if (!cancelled) {
    const now = await requireJob(ctx, organizationId, batchJobId)
    throw AppError.conflict(`Batch job is already ${now.status}`, 'invalid_job_state')
  }
  // Progress streams end at once; dialers stop claiming anyway (they claim only for running jobs).
  await announceJobChange(ctx, cancelled.id)
  return toBatchJob(
    cancelled,
    await store.countContacts(ctx.db, cancelled.id),
    await store.countOutcomes(ctx.db, cancelled.id),
  )
}
