import type { BatchJob, RetryableOutcome, RetryPolicy, RetryRule } from '@parley/shared'
import { useState } from 'preact/hooks'
import { t } from '../i18n.tsx'
import { callOutcomeName } from '../records/format.tsx'

/**
 * A campaign's retries by outcome (the API's `retryPolicy`): the editor of the new-campaign form
 * and the policy in force on the campaign's page.
 */

/** The outcomes a policy sets, in the shared schema's order (retryableOutcomes; a value import would bring zod along). */
export const RETRYABLE_OUTCOMES: readonly RetryableOutcome[] = [
  'busy',
  'no_answer',
  'voicemail',
  'phone_menu',
]

/**
 * The shared schema's defaults (defaultRetryPolicy), what an outcome left out keeps; the studio's
 * campaigns test checks the two are equal.
 */
export const DEFAULT_RETRY_POLICY = {
  busy: { tries: 2, afterMinutes: 10 },
  no_answer: { tries: 2, afterMinutes: 120 },
  voicemail: { tries: 1, afterMinutes: 24 * 60 },
  phone_menu: { tries: 0, afterMinutes: 24 * 60 },
} as const satisfies Record<RetryableOutcome, RetryRule>

/** The schema's bounds of a rule (ZRetryRule): at most 10 more tries, at most a week's wait. */
const MAX_TRIES = 10
const MAX_MINUTES = 7 * 24 * 60

/** The outcomes never retried (the schema's note): completed, transferred, opted out, declined. */
const NEVER_RETRIED = ['completed', 'transferred', 'opted_out', 'rejected'] as const

const UNITS = { minutes: 1, hours: 60, days: 24 * 60 } as const
type Unit = keyof typeof UNITS

/** The largest whole unit a wait is written in (120 minutes: 2 hours). */
const unitOf = (minutes: number): Unit =>
  minutes > 0 && minutes % UNITS.days === 0
    ? 'days'
    : minutes > 0 && minutes % UNITS.hours === 0
      ? 'hours'
      : 'minutes'

export const retryOutcomeName = (outcome: RetryableOutcome) =>
  ({
    busy: t('Busy'),
    no_answer: t('No answer'),
    voicemail: t('Voicemail (left or hung up)'),
    phone_menu: t('Phone menu'),
  })[outcome]

const unitName = (unit: Unit) => ({ minutes: t('minutes'), hours: t('hours'), days: t('days') })[unit]

/** A wait in words: "10 minutes", "2 hours", "1 day". */
const waitText = (minutes: number) => {
  const unit = unitOf(minutes)
  const count = minutes / UNITS[unit]
  if (count === 1) return { minutes: t('1 minute'), hours: t('1 hour'), days: t('1 day') }[unit]
  return {
    minutes: t('{count} minutes', { count }),
    hours: t('{count} hours', { count }),
    days: t('{count} days', { count }),
  }[unit]
}

/** A rule in words: "2 more tries after 10 minutes", or "Not retried". */
export const ruleText = (rule: RetryRule) =>
  rule.tries === 0
    ? t('Not retried')
    : rule.tries === 1
      ? t('1 more try after {wait}', { wait: waitText(rule.afterMinutes) })
      : t('{count} more tries after {wait}', { count: rule.tries, wait: waitText(rule.afterMinutes) })

const neverRetriedLine = () =>
  t('Never retried: {outcomes}.', {
    outcomes: NEVER_RETRIED.map((outcome) => callOutcomeName(outcome)).join(', '),
  })

/** The policy the form's fields say, every outcome set (what the owner saw is what is sent). */
export const retryPolicyOf = (entered: FormData): RetryPolicy =>
  Object.fromEntries(
    RETRYABLE_OUTCOMES.map((outcome) => {
      const unit = String(entered.get(`retry-${outcome}-unit`) ?? 'minutes') as Unit
      const rule: RetryRule = {
        tries: Number(entered.get(`retry-${outcome}-tries`) ?? 0),
        afterMinutes: Number(entered.get(`retry-${outcome}-after`) ?? 0) * (UNITS[unit] ?? 1),
      }
      return [outcome, rule]
    }),
  )

/**
 * The new-campaign form's retries: per outcome, how many more tries and after how long, starting
 * at the defaults (each said next to its fields); the outcomes never retried are named.
 */
export const RetryPolicyFields = ({ problem }: { problem: string | undefined }) => {
  const [units, setUnits] = useState<Record<RetryableOutcome, Unit>>(() => ({
    busy: unitOf(DEFAULT_RETRY_POLICY.busy.afterMinutes),
    no_answer: unitOf(DEFAULT_RETRY_POLICY.no_answer.afterMinutes),
    voicemail: unitOf(DEFAULT_RETRY_POLICY.voicemail.afterMinutes),
    phone_menu: unitOf(DEFAULT_RETRY_POLICY.phone_menu.afterMinutes),
  }))
  return (
    <fieldset
      class="retry-policy"
      aria-describedby={problem ? 'retryPolicy-hint retryPolicy-problem' : 'retryPolicy-hint'}
    >
      <legend>{t('Retries by outcome')}</legend>
      <small class="muted" id="retryPolicy-hint">
        {t(
          'After a try ends this way, how many more tries the contact gets and how long after; inside the calling hours, and never more than the tries per contact.',
        )}
      </small>
      {RETRYABLE_OUTCOMES.map((outcome) => {
        const fallback = DEFAULT_RETRY_POLICY[outcome]
        const unit = units[outcome]
        const id = `retry-${outcome}`
        return (
          <fieldset class="retry-rule" aria-describedby={`${id}-default`}>
            <legend>{retryOutcomeName(outcome)}</legend>
            <small class="muted" id={`${id}-default`}>
              {t('Default: {rule}', { rule: ruleText(fallback) })}
            </small>
            <div class="row">
              <div class="field">
                <label for={`${id}-tries`}>{t('More tries')}</label>
                <input
                  id={`${id}-tries`}
                  name={`${id}-tries`}
                  type="number"
                  min={0}
                  max={MAX_TRIES}
                  step={1}
                  defaultValue={String(fallback.tries)}
                  required
                />
              </div>
              <div class="field">
                <label for={`${id}-after`}>{t('After')}</label>
                <input
                  id={`${id}-after`}
                  name={`${id}-after`}
                  type="number"
                  min={0}
                  max={Math.floor(MAX_MINUTES / UNITS[unit])}
                  step={1}
                  defaultValue={String(fallback.afterMinutes / UNITS[unitOf(fallback.afterMinutes)])}
                  required
                />
              </div>
              <div class="field">
                <label for={`${id}-unit`}>{t('Unit')}</label>
                <select
                  id={`${id}-unit`}
                  name={`${id}-unit`}
                  value={unit}
                  onChange={(event) => setUnits({ ...units, [outcome]: event.currentTarget.value as Unit })}
                >
                  {(Object.keys(UNITS) as Unit[]).map((option) => (
                    <option value={option}>{unitName(option)}</option>
                  ))}
                </select>
              </div>
            </div>
          </fieldset>
        )
      })}
      <p class="muted">{neverRetriedLine()}</p>
      {problem ? (
        <small class="error" id="retryPolicy-problem">
          {problem}
        </small>
      ) : null}
    </fieldset>
  )
}

/** A campaign's policy in force (the defaults with its own rules over them, as the API answers it). */
export const RetryPolicyInForce = ({ job }: { job: BatchJob }) => (
  <section aria-labelledby="retries-title">
    <h2 id="retries-title">{t('Retries by outcome')}</h2>
    <dl class="retry-rules">
      {RETRYABLE_OUTCOMES.map((outcome) => (
        <div>
          <dt>{retryOutcomeName(outcome)}</dt>
          <dd>{ruleText(job.retryPolicy[outcome])}</dd>
        </div>
      ))}
    </dl>
    <p class="muted">{neverRetriedLine()}</p>
  </section>
)
