import type { BatchContactInput, BatchCreated, BatchCreateFields } from '@parley/shared'
import { batchLimits } from '@parley/shared'
import { ulid } from 'ulid'
import { findAgent } from '../agents/store.ts'
import { getBalanceMicros } from '../billing/service.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import type { ApiKeyActor } from '../http/types.ts'
import { findPhoneNumber } from '../phone-numbers/store.ts'
import {
  keepValidCsvRows,
  removeDuplicates,
  requireValidJsonContacts,
  toNewContacts,
  tooManyContacts,
} from './create-contacts.ts'
import { readCsvContacts } from './create-csv.ts'
import { requireTimezone, resolveScheduledStart } from './create-schedule.ts'
import { estimateCostMicros, estimateDuration, formatUsd } from './estimate.ts'
import { BATCH_START_JOB } from './job-names.ts'
import { announceJobChange } from './service.ts'
import * as store from './store.ts'

/** CSV mode: the records parsed as the upload arrived (parseCsvStream); JSON mode: the contacts. */
export type ContactSource =
  | { kind: 'csv'; records: string[][] }
  | { kind: 'json'; contacts: BatchContactInput[] }

/** Step 1: phone validation. CSV skips and counts bad rows; JSON refuses the first bad phone. */
const readValidContacts = async (source: ContactSource) => {
  if (source.kind === 'json') return { contacts: requireValidJsonContacts(source.contacts), skipped: 0 }
  const { rows, malformedRows } = await readCsvContacts(source.records)
  const { valid, invalidRows } = await keepValidCsvRows(rows)
  return { contacts: valid, skipped: malformedRows + invalidRows }
}

/** Steps 2–4: the number (404 when unknown here), its outbound agent, which must be a voice agent. */
const resolveNumberAndAgent = async (ctx: AppContext, organizationId: string, phoneNumberId: string) => {
  const phoneNumber = await findPhoneNumber(ctx.db, { organizationId, id: phoneNumberId })
  if (!phoneNumber) throw AppError.notFound('phone number')
  const agent = phoneNumber.outboundAgentId
    ? await findAgent(ctx.db, { organizationId, id: phoneNumber.outboundAgentId })
    : undefined
  if (!agent)
    throw AppError.badRequest(
      `Phone number ${phoneNumber.number} has no outbound agent assigned`,
      'no_outbound_agent',
    )
  if (agent.agentArchitecture === 'text')
    throw AppError.badRequest(
      `The outbound agent of ${phoneNumber.number} is a text agent; batch calls need a pipeline or realtime agent`,
      'no_outbound_agent',
    )
  if (!agent.active) throw AppError.agentInactive()
  return { phoneNumber, agentId: agent.id, architecture: agent.agentArchitecture }
}

/** Step 6: the balance must cover the estimate (credits are charged per call, not reserved). */
const requireCredits = async (ctx: AppContext, organizationId: string, costMicros: number) => {
  const balance = await getBalanceMicros(ctx.db, organizationId)
  if (balance < costMicros)
    throw AppError.badRequest(
      `Insufficient credits: the estimated cost is ${formatUsd(costMicros)} USD and the balance is ${formatUsd(balance)} USD`,
      'insufficient_credits',
    )
}

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

const summarize = ({ total, skipped, duplicates }: { total: number; skipped: number; duplicates: number }) =>
  [
    `Batch job created with ${total} contact${total === 1 ? '' : 's'}`,
    ...(skipped ? [`${skipped} invalid row${skipped === 1 ? '' : 's'} skipped`] : []),
    ...(duplicates ? [`${duplicates} duplicate${duplicates === 1 ? '' : 's'} removed`] : []),
  ].join('; ')

/** POST /batch/create in the spec's processing order, both modes. */
export const createBatchJob = async (
  ctx: AppContext,
  actor: ApiKeyActor,
  { fields, source }: { fields: BatchCreateFields; source: ContactSource },
): Promise<BatchCreated> => {
  const timezone = requireTimezone(fields.timezone)
  const scheduledStartTime = resolveScheduledStart({
    text: fields.scheduledStartTime,
    timezone,
    now: ctx.clock.now(),
  })

  const { contacts, skipped } = await readValidContacts(source)
  if (contacts.length === 0)
    throw AppError.badRequest(
      skipped ? `No valid contacts: all ${skipped} rows were invalid` : 'No valid contacts were given',
      'no_valid_contacts',
    )
  const { phoneNumber, agentId, architecture } = await resolveNumberAndAgent(
    ctx,
    actor.organizationId,
    fields.fromPhoneNumberId,
  )
  const { unique, duplicates } = removeDuplicates(contacts)
  if (unique.length > batchLimits.maxContacts)
    throw tooManyContacts(`${unique.length} unique valid contacts were given`)
  const costMicros = estimateCostMicros(unique.length, architecture)
  await requireCredits(ctx, actor.organizationId, costMicros)

  const newContacts = toNewContacts(unique)
  const job = await ctx.db.transaction().execute(async (tx) => {
    const created = await store.insertJob(tx, {
      id: ulid(),
      organizationId: actor.organizationId,
      phoneNumberId: phoneNumber.id,
      agentId,
      keyId: actor.keyId,
      name: fields.name,
      description: fields.description ?? null,
      status: scheduledStartTime ? 'scheduled' : 'pending',
      concurrentCallLimit: fields.concurrentCallLimit,
      maxAttempts: fields.maxAttempts,
      scheduledStartTime,
      timezone,
      callingWindow: fields.callingWindow ?? null,
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
    message: summarize({ total: job.totalContacts, skipped, duplicates }),
  }
}
