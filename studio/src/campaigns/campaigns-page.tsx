import type { BatchJob } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { t } from '../i18n.tsx'
import { when } from '../records/format.tsx'
import { linkProps } from '../router.ts'
import { ErrorLine, Loading } from '../ui.tsx'
import { listCampaigns, type Page } from './client.ts'
import { CampaignTabs, JobProgress, Pager } from './parts.tsx'
import { jobStatusName } from './words.ts'

/** The organization's campaigns (batch jobs), newest first, a page at a time, with their progress. */
export const CampaignsPage = () => {
  const [jobs, setJobs] = useState<Page<BatchJob> | null>(null)
  const [page, setPage] = useState(1)
  const [error, setError] = useState<unknown>(null)
  const load = (at: number) => {
    setError(null)
    listCampaigns(at).then((loaded) => {
      setJobs(loaded)
      setPage(at)
    }, setError)
  }
  useEffect(() => load(1), [])
  return (
    <section aria-labelledby="campaigns-title">
      <CampaignTabs />
      <div class="row">
        <h1 id="campaigns-title">{t('Campaigns')}</h1>
        <a class="button primary" {...linkProps('/campaigns/new')}>
          {t('New campaign')}
        </a>
      </div>
      <ErrorLine error={error} />
      {jobs === null ? (
        error ? null : (
          <Loading />
        )
      ) : jobs.data.length === 0 ? (
        <p class="empty">{t('No campaigns yet. Upload a list of contacts and your agent calls them.')}</p>
      ) : (
        <ul class="campaigns">
          {jobs.data.map((job) => (
            <li class="card">
              <div class="row">
                <a {...linkProps(`/campaigns/${job.id}`)}>
                  <strong>{job.name}</strong>
                </a>
                <span class={`badge status-${job.status}`}>{jobStatusName(job.status)}</span>
              </div>
              <JobProgress id={job.id} counters={job.counters} />
              <span class="muted">{t('Created {when}', { when: when(job.createdAt) })}</span>
            </li>
          ))}
        </ul>
      )}
      {jobs ? (
        <Pager
          page={page}
          hasNext={jobs.pagination.hasNext}
          total={jobs.pagination.total}
          onPage={load}
          label={t('Pages of campaigns')}
        />
      ) : null}
    </section>
  )
}
