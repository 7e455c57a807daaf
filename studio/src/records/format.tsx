import type { AnalysisResult } from '@parley/shared'
import { language, t } from '../i18n.tsx'

/** A moment in the reader's language (Urdu and Sindhi digits and month names where chosen). */
export const when = (iso: string) =>
  new Date(iso).toLocaleString(language.value, { dateStyle: 'medium', timeStyle: 'short' })

/** US dollars to the micro-dollar the ledger keeps, with at least cents (batch amounts are strings). */
export const usd = (amount: number | string) =>
  new Intl.NumberFormat(language.value, {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 2,
    maximumFractionDigits: 6,
  }).format(Number(amount))

export const seconds = (value: number | null) =>
  value === null
    ? '—'
    : t('{minutes} min {seconds} s', { minutes: Math.floor(value / 60), seconds: value % 60 })

/** How a call ended (the API's outcome codes) in words; an unknown code as given. */
export const callOutcomeName = (outcome: string | null) => {
  if (outcome === null) return '—'
  const known: Record<string, string> = {
    completed: t('Call finished'),
    voicemail_left: t('Voicemail left'),
    voicemail_hung_up: t('Voicemail, hung up'),
    no_answer: t('No answer'),
    busy: t('Busy'),
    rejected: t('Declined'),
    failed: t('Call failed'),
    phone_menu: t('Phone menu'),
    opted_out: t('Opted out'),
    transferred: t('Transferred to a person'),
    agent_unavailable: t('No agent was free'),
  }
  return known[outcome] ?? outcome
}

const sentimentOf = (sentiment: AnalysisResult['sentiment']) =>
  ({ positive: t('positive'), neutral: t('neutral'), negative: t('negative') })[sentiment]

/** The post-conversation analysis: summary, sentiment, outcome and the agent's own fields. */
export const AnalysisCard = ({ analysis }: { analysis: AnalysisResult | null }) =>
  analysis ? (
    <div class="card">
      <h2>{t('Analysis')}</h2>
      <p>{analysis.summary}</p>
      <dl class="facts">
        <dt>{t('Sentiment')}</dt>
        <dd>{sentimentOf(analysis.sentiment)}</dd>
        <dt>{t('Outcome')}</dt>
        <dd>{analysis.outcome}</dd>
        {Object.entries(analysis.data ?? {}).map(([name, value]) => (
          <>
            <dt>
              <code>{name}</code>
            </dt>
            <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
          </>
        ))}
      </dl>
    </div>
  ) : null
