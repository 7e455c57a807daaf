import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import * as controlStore from './control-store.ts'
import { toBatchJob } from './present.ts'
import { requireJob } from './service.ts'
import * as store from './store.ts'

type JobRef = { organizationId: string; batchJobId: string }

/** Another organization's job answers 404, as a missing one does. */
export const findOwnJob = (ctx: AppContext, { organizationId, batchJobId }: JobRef) =>
  requireJob(ctx, organizationId, batchJobId)

const refused = (action: string, status: string) =>
  AppError.conflict(`A ${status} batch job cannot be ${action}`, 'invalid_job_state')

/** Tells dashboards and every worker's dialer (through Redis when there are several instances). */
const announce = (ctx: AppContext, batchJobId: string) => ctx.signals.publish('batch.changed', { batchJobId })

const withCounters = async (ctx: AppContext, job: store.BatchJobRow) =>
  toBatchJob(job, await store.countContacts(ctx.db, job.id))

/** No new dials from now on; calls in flight finish. */
export const pauseBatchJob = async (ctx: AppContext, ref: JobRef) => {
  const job = await findOwnJob(ctx, ref)
  const paused = await controlStore.pauseJob(ctx.db, { id: job.id, now: ctx.clock.now() })
  if (!paused) throw refused('paused', job.status)
  await announce(ctx, job.id)
  return { success: true as const, data: await withCounters(ctx, paused) }
}

/** Dialling continues where it stopped (or the job waits for its scheduled start again). */
export const resumeBatchJob = async (ctx: AppContext, ref: JobRef) => {
  const job = await findOwnJob(ctx, ref)
  const resumed = await controlStore.resumeJob(ctx.db, { id: job.id, now: ctx.clock.now() })
  if (!resumed) throw refused('resumed', job.status)
  await announce(ctx, job.id)
  return { success: true as const, data: await withCounters(ctx, resumed) }
}

/** Failed contacts that still have attempts left wait for a dial again. */
export const retryFailedContacts = async (ctx: AppContext, ref: JobRef) => {
  const job = await findOwnJob(ctx, ref)
  const result = await controlStore.requeueFailedContacts(ctx.db, { id: job.id, now: ctx.clock.now() })
  if (!result) throw refused('retried', job.status)
  if (result.requeued > 0) await announce(ctx, job.id)
  return { success: true as const, data: await withCounters(ctx, result.job), requeued: result.requeued }
}
