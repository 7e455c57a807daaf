import type { BatchCounters } from '@parley/shared'
import { t } from '../i18n.tsx'
import { linkProps, route } from '../router.ts'
import { doneOf } from './words.ts'

/** The area's own tabs: its campaigns and the numbers they call from. */
export const CampaignTabs = () => (
  <nav aria-label={t('Campaigns and phone numbers')} class="tabs campaign-tabs">
    {[
      { path: '/campaigns', label: t('Campaigns') },
      { path: '/campaigns/phone-numbers', label: t('Phone numbers') },
      { path: '/campaigns/do-not-call', label: t('Do not call') },
    ].map((tab) => (
      <a {...linkProps(tab.path)} aria-current={route.value === tab.path ? 'page' : undefined}>
        {tab.label}
      </a>
    ))}
  </nav>
)

/** How far a job is: contacts done (completed, failed or cancelled) of all, as a labelled bar. */
export const JobProgress = ({ id, counters }: { id: string; counters: BatchCounters }) => {
  const done = doneOf(counters)
  return (
    <div class="job-progress">
      <progress id={`progress-${id}`} max={Math.max(counters.total, 1)} value={done} />
      <label for={`progress-${id}`}>
        {t('{done} of {total} contacts done', { done, total: counters.total })}
      </label>
    </div>
  )
}

/** Previous / next for a page-numbered list (the API's `pagination`). */
export const Pager = ({
  page,
  hasNext,
  total,
  onPage,
  label,
}: {
  page: number
  hasNext: boolean
  total: number
  onPage: (page: number) => void
  label: string
}) =>
  page > 1 || hasNext ? (
    <nav class="row pager" aria-label={label}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('Previous')}
      </button>
      <span class="muted">{t('Page {page} · {total} in all', { page, total })}</span>
      <button type="button" disabled={!hasNext} onClick={() => onPage(page + 1)}>
        {t('Next')}
      </button>
    </nav>
  ) : null
