import type { WebhookDelivery } from '@parley/shared'
import { useState } from 'preact/hooks'
import { t } from '../i18n.tsx'
import { ErrorLine } from '../ui.tsx'
import { redeliver } from './client.ts'
import { when } from './format.tsx'

const statusName = (status: WebhookDelivery['status']) =>
  ({ pending: t('Pending'), succeeded: t('Succeeded'), failed: t('Failed') })[status]

/** How the endpoint last answered: its HTTP status, the error, the start of its body. */
const lastAnswer = (delivery: WebhookDelivery) =>
  [
    delivery.lastStatusCode !== null ? `HTTP ${delivery.lastStatusCode}` : '',
    delivery.lastError ?? '',
    delivery.lastResponse ? delivery.lastResponse.slice(0, 200) : '',
  ]
    .filter(Boolean)
    .join(' · ')

export const DeliveryItem = ({
  agentId,
  delivery,
  onRedelivered,
}: {
  agentId: string
  delivery: WebhookDelivery
  onRedelivered: (delivery: WebhookDelivery) => void
}) => {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [result, setResult] = useState<WebhookDelivery | null>(null)
  const send = async () => {
    setBusy(true)
    setError(null)
    setResult(null)
    try {
      const sent = await redeliver(agentId, delivery.id)
      setResult(sent)
      onRedelivered(sent)
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  const answer = lastAnswer(delivery)
  return (
    <li class="org-item">
      <div class="row">
        <code dir="ltr">{delivery.event}</code>
        <span class={`badge status-${delivery.status}`}>{statusName(delivery.status)}</span>
        <span class="muted">{t('Attempts: {count}', { count: delivery.attempts })}</span>
      </div>
      <p class="muted">
        {t('Created {date}', { date: when(delivery.createdAt) })}
        {delivery.lastAttemptAt
          ? ` · ${t('Last attempt {date}', { date: when(delivery.lastAttemptAt) })}`
          : ''}
        {delivery.nextAttemptAt
          ? ` · ${t('Next attempt {date}', { date: when(delivery.nextAttemptAt) })}`
          : ''}
      </p>
      <p class="org-wrap">
        {t('Last answer:')} <span class="muted">{answer || t('none yet')}</span>
      </p>
      <div class="row">
        <button type="button" class="small" onClick={send} disabled={busy} aria-busy={busy}>
          {busy ? t('Redelivering…') : t('Redeliver')}
        </button>
        <div aria-live="polite">
          {result ? (
            <span class={result.status === 'failed' ? 'error' : 'ok'}>
              {t('Sent again as a new delivery: {status}', { status: statusName(result.status) })}
              {lastAnswer(result) ? ` (${lastAnswer(result)})` : ''}
            </span>
          ) : null}
        </div>
      </div>
      <ErrorLine error={error} />
    </li>
  )
}
