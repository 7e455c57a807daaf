import {
  type BatchContact,
  type BatchContactTry,
  type BatchCounters,
  type BatchJob,
  type BatchProgressEvent,
  resolveRetryPolicy,
} from '@parley/shared'
import { formatUsd } from './estimate.ts'
import type { BatchContactRow, BatchJobRow, OutcomeCounts } from './store.ts'

export const toBatchJob = (job: BatchJobRow, counters: BatchCounters, outcomes: OutcomeCounts): BatchJob => ({
  id: job.id,
  name: job.name,
  description: job.description,
  status: job.status,
  phoneNumberId: job.phoneNumberId,
  agentId: job.agentId,
  concurrentCallLimit: job.concurrentCallLimit,
  maxAttempts: job.maxAttempts,
  scheduledStartTime: job.scheduledStartTime?.toISOString() ?? null,
  timezone: job.timezone,
  callingWindow: job.callingWindow,
  retryPolicy: resolveRetryPolicy(job.retryPolicy),
  totalContacts: job.totalContacts,
  estimatedCost: formatUsd(job.estimatedCostMicros),
  counters,
  outcomes,
  failureReason: job.failureReason,
  unknownPlaceholders: job.unknownPlaceholders,
  createdAt: job.createdAt.toISOString(),
  startedAt: job.startedAt?.toISOString() ?? null,
  finishedAt: job.finishedAt?.toISOString() ?? null,
  updatedAt: job.updatedAt.toISOString(),
})

export const toBatchContact = (contact: BatchContactRow, tries: BatchContactTry[] = []): BatchContact => ({
  id: contact.id,
  position: contact.position,
  phone: contact.phone,
  name: contact.name,
  fields: contact.fields,
  timeZone: contact.timeZone,
  status: contact.status,
  attempts: contact.attempts,
  nextAttemptAt: contact.nextAttemptAt.toISOString(),
  lastError: contact.lastError,
  lastOutcome: contact.lastOutcome,
  callId: contact.callId,
  tries,
  updatedAt: contact.updatedAt.toISOString(),
})

/** One event of GET /batch/{id}/events. */
export const toBatchProgress = (job: BatchJobRow, counters: BatchCounters): BatchProgressEvent => ({
  batchJobId: job.id,
  status: job.status,
  counters,
  failureReason: job.failureReason,
  unknownPlaceholders: job.unknownPlaceholders,
  updatedAt: job.updatedAt.toISOString(),
})
