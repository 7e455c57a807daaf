import type { BatchJob } from '@parley/shared'
import { useEffect, useMemo } from 'preact/hooks'
import { t } from '../i18n.tsx'
import { usd, when } from '../records/format.tsx'
import { linkProps } from '../router.ts'
import { ErrorLine, Loading } from '../ui.tsx'
import { CampaignContacts } from './campaign-contacts.tsx'
import { type CampaignModel, createCampaignModel } from './campaign-model.ts'
import { JobProgress } from './parts.tsx'
import { RetryPolicyInForce } from './retry-policy.tsx'
import { allowedActions, jobStatusName, outcomeName } from './words.ts'

const Counters = ({ job }: { job: BatchJob }) => (
  <dl class="counters">
    {[
      [t('Waiting'), job.counters.pending],
      [t('On a call'), job.counters.in_progress],
      [t('Completed'), job.counters.completed],
      [t('Failed'), job.counters.failed],
      [t('Cancelled'), job.counters.cancelled],
    ].map(([name, value]) => (
      <div>
        <dt>{name}</dt>
        <dd>{value}</dd>
      </div>
    ))}
  </dl>
)

/** How the campaign's finished tries ended: a count per outcome, largest first. */
const Outcomes = ({ job }: { job: BatchJob }) => {
  const counted = Object.entries(job.outcomes).sort(([, a], [, b]) => (b ?? 0) - (a ?? 0))
  return (
    <section aria-labelledby="outcomes-title">
      <h2 id="outcomes-title">{t('Outcomes')}</h2>
      {counted.length === 0 ? (
        <p class="empty">{t('No call has ended yet.')}</p>
      ) : (
        <dl class="counters outcomes">
          {counted.map(([outcome, count]) => (
            <div>
              <dt>{outcomeName(outcome)}</dt>
              <dd>{count}</dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  )
}

/**
 * Pause, resume, cancel (confirmed) and retry failed, each enabled only when the job's state lets
 * the API accept it. The batch routes let every member of the organization act, so all see them.
 */
const Controls = ({ model, job }: { model: CampaignModel; job: BatchJob }) => {
  const allowed = allowedActions(job.status, job.counters)
  const busy = model.busy.value
  const cancel = () => {
    if (confirm(t('Cancel {name}? No one else is called; calls in progress finish.', { name: job.name })))
      void model.act('cancel')
  }
  const requeued = model.requeued.value
  return (
    <div class="campaign-controls">
      <div class="row">
        <button type="button" disabled={!allowed.pause || busy !== null} onClick={() => model.act('pause')}>
          {t('Pause')}
        </button>
        <button type="button" disabled={!allowed.resume || busy !== null} onClick={() => model.act('resume')}>
          {t('Resume')}
        </button>
        <button
          type="button"
          disabled={!allowed.retryFailed || busy !== null}
          onClick={() => model.act('retry-failed')}
        >
          {t('Retry failed')}
        </button>
        <button type="button" class="danger" disabled={!allowed.cancel || busy !== null} onClick={cancel}>
          {t('Cancel campaign')}
        </button>
      </div>
      <ErrorLine error={model.actionError.value} />
      <p class="ok" role="status">
        {requeued === null
          ? ''
          : requeued > 0
            ? t('{count} failed contacts will be called again.', { count: requeued })
            : t('No failed contact has tries left.')}
      </p>
    </div>
  )
}

/** A campaign: live progress over its stream, the controls its state allows, each contact's outcome. */
export const CampaignPage = ({ id }: { id: string }) => {
  const model = useMemo(() => createCampaignModel(id), [id])
  useEffect(() => {
    void model.start()
    return model.dispose
  }, [model])
  const job = model.job.value
  if (!job) return model.loadError.value ? <ErrorLine error={model.loadError.value} /> : <Loading />
  return (
    <section aria-labelledby="campaign-title">
      <p>
        <a class="back" {...linkProps('/campaigns')}>
          {t('Campaigns')}
        </a>
      </p>
      <div class="row">
        <h1 id="campaign-title">{job.name}</h1>
        <span class={`badge status-${job.status}`} role="status" id="campaign-status">
          {jobStatusName(job.status)}
        </span>
        {model.isLive.value ? <span class="muted live-dot">{t('Live')}</span> : null}
      </div>
      {job.description ? <p class="muted">{job.description}</p> : null}
      <JobProgress id={job.id} counters={job.counters} />
      <Counters job={job} />
      {job.failureReason ? <p class="error">{job.failureReason}</p> : null}
      {job.unknownPlaceholders.length > 0 ? (
        <p class="notice">
          {t("The agent's prompt names fields the contacts do not have: {names}", {
            names: job.unknownPlaceholders.join(', '),
          })}
        </p>
      ) : null}
      <Controls model={model} job={job} />
      <p class="muted">
        {t('Estimated cost: {cost}', { cost: usd(job.estimatedCost) })} ·{' '}
        {t('Calls at a time: {limit} · tries per contact: {tries}', {
          limit: job.concurrentCallLimit,
          tries: job.maxAttempts,
        })}
        {job.scheduledStartTime ? ` · ${t('Starts {time}', { time: when(job.scheduledStartTime) })}` : ''}
      </p>
      <ErrorLine error={model.loadError.value} />
      <Outcomes job={job} />
      <RetryPolicyInForce job={job} />
      <CampaignContacts model={model} />
    </section>
  )
}
