import type { BatchContactStatus, BatchCounters, BatchJobStatus, BatchSkipReason } from '@parley/shared'
import { t } from '../i18n.tsx'
import { callOutcomeName } from '../records/format.tsx'

/** The campaigns area's words for the API's codes (each a literal t() phrase, translated). */

export const jobStatusName = (status: BatchJobStatus) =>
  ({
    pending: t('Starting'),
    scheduled: t('Scheduled'),
    running: t('Calling'),
    paused: t('Paused'),
    completed: t('Completed'),
    failed: t('Failed'),
    cancelled: t('Cancelled'),
  })[status]

/** The API's contact statuses (shared's batchContactStatuses; a value import would bring zod along). */
export const CONTACT_STATUSES: readonly BatchContactStatus[] = [
  'pending',
  'in_progress',
  'completed',
  'failed',
  'cancelled',
]

export const contactStatusName = (status: BatchContactStatus) =>
  ({
    pending: t('Waiting'),
    in_progress: t('On a call'),
    completed: t('Completed'),
    failed: t('Failed'),
    cancelled: t('Cancelled'),
  })[status]

export const skipReasonName = (reason: BatchSkipReason, duplicateOfRow: number | null) =>
  ({
    missing_phone: t('No phone number'),
    invalid_phone: t('Not a valid phone number (E.164, like +14155550123)'),
    wrong_column_count: t('The row has more or fewer cells than the header'),
    duplicate: t('Same number as row {row}', { row: duplicateOfRow ?? '?' }),
    do_not_call: t('The number is on the do-not-call list'),
  })[reason]

/** A try's outcome: a call's outcome, or answered while its call is live. */
export const outcomeName = (outcome: string | null) => {
  if (outcome === 'answered') return t('Answered')
  if (outcome === 'cancelled') return t('Cancelled')
  return callOutcomeName(outcome)
}

/** Contacts that will not be dialled again unless retried: done, one way or another. */
export const doneOf = (counters: BatchCounters) => counters.completed + counters.failed + counters.cancelled

export const TERMINAL_STATUSES: ReadonlySet<BatchJobStatus> = new Set(['completed', 'failed', 'cancelled'])

/** Which controls the job's state allows (what the API's control routes accept). */
export const allowedActions = (status: BatchJobStatus, counters: BatchCounters) => ({
  pause: status === 'pending' || status === 'scheduled' || status === 'running',
  resume: status === 'paused',
  cancel: !TERMINAL_STATUSES.has(status),
  retryFailed: counters.failed > 0 && ['running', 'paused', 'completed', 'failed'].includes(status),
})

/** The days of a calling window, Monday first, as the API names them. */
export const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const
export const dayName = (day: (typeof weekdays)[number]) =>
  ({
    mon: t('Monday'),
    tue: t('Tuesday'),
    wed: t('Wednesday'),
    thu: t('Thursday'),
    fri: t('Friday'),
    sat: t('Saturday'),
    sun: t('Sunday'),
  })[day]
