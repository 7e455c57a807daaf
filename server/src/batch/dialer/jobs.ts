import { onCallRefining, onCallsClosing, registerContactReader } from '../../calls/index.ts'
import type { AppContext } from '../../context.ts'
import { readContactOfCall } from '../contact-of-call.ts'
import { BATCH_START_JOB, type BatchStartData } from '../job-names.ts'
import { announceJobChange } from '../service.ts'
import { settleClosingCalls, settleRefinedCall } from './recover.ts'
import * as store from './store.ts'

/**
 * The queue's part of dialing: a worker taking `batch.start` moves the job to running (a scheduled
 * one only once the clock has reached its start) and wakes the dialers. Every instance also settles
 * the batch calls it closes, whatever closed them, and wakes the dialers for the freed slot.
 */
export const registerBatchJobs = (ctx: AppContext) => {
  ctx.jobs.define<BatchStartData>(BATCH_START_JOB, async ({ batchJobId }) => {
    if (await store.startJob(ctx.db, { id: batchJobId, now: ctx.clock.now() }))
      await announceJobChange(ctx, batchJobId)
  })
  onCallsClosing(ctx, settleClosingCalls(ctx))
  onCallRefining(ctx, settleRefinedCall(ctx))
  // calls/ reads a dialled call's contact through this reader, not batch's store.
  registerContactReader(ctx, readContactOfCall)
}
