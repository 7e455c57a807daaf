import type { BatchCounters, BatchJob, BatchProgressEvent } from '@parley/shared'
import { toUsd } from '../billing/service.ts'
import type { BatchJobRow } from './store.ts'

const isoOrNull = (date: Date | null) => date?.toISOString() ?? null

export const presentJob = (job: BatchJobRow, counters: BatchCounters): BatchJob => ({
  id: job.id,
  name: job.name,
  description: job.description,
  status: job.status,
  phoneNumberId: job.phoneNumberId,
  agentId: job.agentId,
  concurrentCallLimit: job.concurrentCallLimit,
  maxAttempts: job.maxAttempts,
  scheduledStartTime: isoOrNull(job.scheduledStartTime),
  timezone: job.timezone,
  callingWindow: job.callingWindow,
  totalContacts: job.totalContacts,
  estimatedCost: toUsd(job.estimatedCostMicros).toFixed(2),
  counters,
  failureReason: job.failureReason,
  unknownPlaceholders: job.unknownPlaceholders,
  createdAt: job.createdAt.toISOString(),
  startedAt: isoOrNull(job.startedAt),
  finishedAt: isoOrNull(job.finishedAt),
  updatedAt: job.updatedAt.toISOString(),
})

export const presentProgress = (job: BatchJobRow, counters: BatchCounters): BatchProgressEvent => ({
  batchJobId: job.id,
  status: job.status,
  counters,
  failureReason: job.failureReason,
  unknownPlaceholders: job.unknownPlaceholders,
  updatedAt: job.updatedAt.toISOString(),
})
