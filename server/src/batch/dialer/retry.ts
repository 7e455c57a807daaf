import {
  type CallingWindow,
  type CallOutcome,
  type RetryableOutcome,
  type RetryPolicy,
  resolveRetryPolicy,
} from '@parley/shared'
import { DateTime } from 'luxon'
import { nextAttemptAt } from './backoff.ts'
import { nextWindowOpening } from './calling-window.ts'

/**
 * Retries by outcome (README "Call outcomes and retries"): the campaign's retry policy says how
 * many more tries a busy line, an unanswered phone, a voicemail box or a phone menu gets and how
 * long after; a completed, transferred, opted-out or rejected call is never retried; a failed dial
 * or a call no agent took follows the back-off. No contact is tried more than the job's maxAttempts. A retry lands inside the calling
 * window in the contact's zone (else the job's).
 */

/** An attempt's outcome: a call outcome, or `answered` while its call is live. */
export type AttemptOutcome = CallOutcome | 'answered'

const groupOf = (outcome: AttemptOutcome): RetryableOutcome | null => {
  if (outcome === 'voicemail_left' || outcome === 'voicemail_hung_up') return 'voicemail'
  if (outcome === 'busy' || outcome === 'no_answer' || outcome === 'phone_menu') return outcome
  return null
}

const neverRetried = new Set<AttemptOutcome>(['completed', 'transferred', 'opted_out', 'rejected'])

/** How a contact ends when it is not tried again: reached (completed) or not (failed). */
export const finalStatusOf = (outcome: AttemptOutcome): 'completed' | 'failed' =>
  outcome === 'completed' ||
  outcome === 'transferred' ||
  outcome === 'voicemail_left' ||
  outcome === 'opted_out'
    ? 'completed'
    : 'failed'

const isKnownZone = (zone: string) => DateTime.now().setZone(zone).isValid

export type RetryContext = {
  /** The outcomes of the contact's earlier finished attempts. */
  earlierOutcomes: string[]
  attemptNumber: number
  maxAttempts: number
  retryPolicy: RetryPolicy | null
  callingWindow: CallingWindow | null
  jobZone: string
  contactZone: string | null
}

/** When the contact is tried next after an attempt that ended with `outcome`; null: never. */
export const retryAtFor = (
  context: RetryContext,
  { outcome, now, baseMs }: { outcome: AttemptOutcome; now: Date; baseMs: number },
): Date | null => {
  // maxAttempts caps every contact's tries, whatever the policy allows.
  if (neverRetried.has(outcome) || context.attemptNumber >= context.maxAttempts) return null
  const group = groupOf(outcome)
  let at: Date | null
  if (group) {
    const rule = resolveRetryPolicy(context.retryPolicy)[group]
    const earlier = context.earlierOutcomes.filter(
      (previous) => groupOf(previous as AttemptOutcome) === group,
    )
    at = earlier.length < rule.tries ? new Date(now.getTime() + rule.afterMinutes * 60_000) : null
  } else {
    at = nextAttemptAt({
      attemptNumber: context.attemptNumber,
      maxAttempts: context.maxAttempts,
      now,
      baseMs,
    })
  }
  if (!at || !context.callingWindow) return at
  const zone = context.contactZone && isKnownZone(context.contactZone) ? context.contactZone : context.jobZone
  return nextWindowOpening(context.callingWindow, zone, at) ?? at
}
