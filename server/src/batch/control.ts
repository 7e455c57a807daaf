import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import * as controlStore from './control-store.ts'
import { toBatchJob } from './present.ts'
import { announceJobChange, requireJob } from './service.ts'
import * as store from './store.ts'

type JobRef = { organizationId: string; batchJobId: string }

const refused = (action: string, status: string) =>
  AppError.conflict(`A ${status} batch job cannot be ${action}`, 'invalid_job_state')

const withCounters = async (ctx: AppContext, job: store.BatchJobRow) =>
  toBatchJob(job, await store.countContacts(ctx.db, job.id), await store.countOutcomes(ctx.db, job.id))

/** No new dials from now on; calls in flight finish. */
export const pauseBatchJob = async (ctx: AppContext, ref: JobRef) => {
  const job = await requireJob(ctx, ref.organizationId, ref.batchJobId)
  const paused = await controlStore.pauseJob(ctx.db, { id: job.id, now: ctx.clock.now() })
  if (!paused) throw refused('paused', job.status)
  await announceJobChange(ctx, job.id)
  return { success: true as const, data: await withCounters(ctx, paused) }
}

/** Dialling continues where it stopped (or the job waits for its scheduled start again). */
export const resumeBatchJob = async (ctx: AppContext, ref: JobRef) => {
  const job = await requireJob(ctx, ref.organizationId, ref.batchJobId)
  const resumed = await controlStore.resumeJob(ctx.db, { id: job.id, now: ctx.clock.now() })
  if (!resumed) throw refused('resumed', job.status)
  await announceJobChange(ctx, job.id)
  return { success: true as const, data: await withCounters(ctx, resumed) }
}

/** Failed contacts that still have attempts left wait for a dial again. */
export const retryFailedContacts = async (ctx: AppContext, ref: JobRef) => {
  const job = await requireJob(ctx, ref.organizationId, ref.batchJobId)
  const result = await controlStore.requeueFailedContacts(ctx.db, { id: job.id, now: ctx.clock.now() })
  if (!result) throw refused('retried', job.status)
  if (result.requeued > 0) await announceJobChange(ctx, job.id)
  return { success: true as const, data: await withCounters(ctx, result.job), requeued: result.requeued }
}
