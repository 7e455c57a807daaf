import type { BatchCreated, BatchCreateFields } from '@parley/shared'
import type { AppContext } from '../context.ts'
import { newUlid } from '../crypto/ids.ts'
import { AppError } from '../http/app-error.ts'
import type { ApiKeyActor } from '../http/types.ts'
import { type ContactSource, checkBatchRequest, requireCredits } from './create-check.ts'
import { toNewContacts } from './create-contacts.ts'
import { estimateDuration, formatUsd } from './estimate.ts'
import { BATCH_START_JOB } from './job-names.ts'
import { announceJobChange } from './service.ts'
import * as store from './store.ts'

export type { ContactSource } from './create-check.ts'

/** Step 8: the dialer's start job; if it cannot be queued the job is failed rather than left idle. */
const enqueueStart = async (ctx: AppContext, job: store.BatchJobRow) => {
  try {
    if (job.scheduledStartTime)
      await ctx.jobs.schedule(job.scheduledStartTime, BATCH_START_JOB, { batchJobId: job.id })
    else await ctx.jobs.now(BATCH_START_JOB, { batchJobId: job.id })
  } catch (error) {
    await store.transitionJob(ctx.db, {
      id: job.id,
      from: ['pending', 'scheduled'],
      to: 'failed',
      failureReason: 'The job could not be queued',
    })
    throw AppError.internal(error)
  }
}

const summarize = ({
  total,
  skipped,
  duplicates,
  doNotCall,
}: {
  total: number
  skipped: number
  duplicates: number
  doNotCall: number
}) =>
  [
    `Batch job created with ${total} contact${total === 1 ? '' : 's'}`,
    ...(skipped ? [`${skipped} invalid row${skipped === 1 ? '' : 's'} skipped`] : []),
    ...(duplicates ? [`${duplicates} duplicate${duplicates === 1 ? '' : 's'} removed`] : []),
    ...(doNotCall ? [`${doNotCall} on the do-not-call list skipped`] : []),
  ].join('; ')

/** POST /batch/create in the spec's processing order, both modes. */
export const createBatchJob = async (
  ctx: AppContext,
  actor: ApiKeyActor,
  { fields, source }: { fields: BatchCreateFields; source: ContactSource },
): Promise<BatchCreated> => {
  const checked = await checkBatchRequest(ctx, actor.organizationId, { fields, source })
  requireCredits(checked)
  const { timezone, scheduledStartTime, phoneNumber, agent, costMicros } = checked

  const newContacts = toNewContacts(checked.contacts)
  const job = await ctx.db.transaction().execute(async (tx) => {
    const created = await store.insertJob(tx, {
      id: newUlid(),
      organizationId: actor.organizationId,
      phoneNumberId: phoneNumber.id,
      agentId: agent.id,
      keyId: actor.keyId,
      name: fields.name,
      description: fields.description ?? null,
      status: scheduledStartTime ? 'scheduled' : 'pending',
      concurrentCallLimit: fields.concurrentCallLimit,
      maxAttempts: fields.maxAttempts,
      scheduledStartTime,
      timezone,
      callingWindow: fields.callingWindow ?? null,
      retryPolicy: fields.retryPolicy ?? null,
      totalContacts: newContacts.length,
      estimatedCostMicros: costMicros,
    })
    await store.insertContacts(tx, {
      batchJobId: created.id,
      organizationId: actor.organizationId,
      contacts: newContacts,
    })
    return created
  })
  await enqueueStart(ctx, job)
  // The dialers start a pending job on this signal (the same conditional start as batch.start's)
  // instead of waiting for the queue's next poll; batch.start then finds it running.
  if (!scheduledStartTime) await announceJobChange(ctx, job.id)

  return {
    success: true,
    batchJobId: job.id,
    totalContacts: job.totalContacts,
    estimatedDuration: estimateDuration(job.totalContacts, job.concurrentCallLimit),
    estimatedCost: formatUsd(costMicros),
    status: scheduledStartTime ? 'scheduled' : 'pending',
    scheduledStartTime: scheduledStartTime?.toISOString() ?? null,
    message: summarize({
      total: job.totalContacts,
      skipped: checked.invalid.length,
      duplicates: checked.duplicates.length,
      doNotCall: checked.doNotCall.length,
    }),
    skippedDoNotCall: checked.doNotCall.length,
  }
}
