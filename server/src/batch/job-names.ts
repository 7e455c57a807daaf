/**
 * Agenda job names of batch calling. `batch.start` ({batchJobId}) is enqueued by create — now for
 * a pending job, at the start instant for a scheduled one — and handled by the dialer.
 */
export const BATCH_START_JOB = 'batch.start'
export type BatchStartData = { batchJobId: string }
