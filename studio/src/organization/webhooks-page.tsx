import type { AgentListItem, WebhookDelivery } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { listAgents } from '../agents/client.ts'
import { t } from '../i18n.tsx'
import { ErrorLine, Loading } from '../ui.tsx'
import { listDeliveries } from './client.ts'
import { DeliveryItem } from './delivery-item.tsx'
import { MoreButton } from './format.tsx'

/** Webhook deliveries of one agent at a time, newest first, each with its attempts and a redeliver button. */
export const WebhooksPage = () => {
  const [agents, setAgents] = useState<AgentListItem[] | null>(null)
  const [agentId, setAgentId] = useState(new URLSearchParams(location.search).get('agent') ?? '')
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    listAgents().then((rows) => {
      setAgents(rows)
      setAgentId((chosen) => (rows.some((agent) => agent.id === chosen) ? chosen : (rows[0]?.id ?? '')))
    }, setError)
  }, [])
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">{t('Webhook deliveries')}</h1>
      <p class="muted">
        {t(
          "What Parley sent to each agent's webhook URL when a chat or call ended, and how the endpoint answered. A failed delivery is tried up to five times; you can send any of them again.",
        )}
      </p>
      <ErrorLine error={error} />
      {agents === null ? (
        error ? null : (
          <Loading />
        )
      ) : agents.length === 0 ? (
        <p class="empty">{t('No agents yet, so no deliveries.')}</p>
      ) : (
        <>
          <div class="field">
            <label for="webhook-agent">{t('Agent')}</label>
            <select
              id="webhook-agent"
              value={agentId}
              onChange={(event) => setAgentId(event.currentTarget.value)}
            >
              {agents.map((agent) => (
                <option value={agent.id}>{agent.name}</option>
              ))}
            </select>
          </div>
          {agentId ? <Deliveries key={agentId} agentId={agentId} /> : null}
        </>
      )}
    </section>
  )
}

const Deliveries = ({ agentId }: { agentId: string }) => {
  const [deliveries, setDeliveries] = useState<WebhookDelivery[] | null>(null)
  const [page, setPage] = useState(1)
  const [hasNext, setHasNext] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const load = async (wanted: number) => {
    setBusy(true)
    setError(null)
    try {
      const answer = await listDeliveries(agentId, wanted)
      // A redelivery added rows at the top since the first page: skip any already shown.
      setDeliveries((shown) => {
        const known = new Set((shown ?? []).map((row) => row.id))
        return wanted === 1
          ? answer.data
          : [...(shown ?? []), ...answer.data.filter((row) => !known.has(row.id))]
      })
      setPage(wanted)
      setHasNext(answer.pagination.hasNext)
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  useEffect(() => {
    void load(1)
  }, [agentId])
  const prepend = (delivery: WebhookDelivery) => setDeliveries((shown) => [delivery, ...(shown ?? [])])
  return (
    <>
      {deliveries === null ? (
        error ? null : (
          <Loading />
        )
      ) : deliveries.length === 0 ? (
        <p class="empty">
          {t(
            'No deliveries yet. They appear when a chat or call of this agent ends and it has a webhook URL in its settings.',
          )}
        </p>
      ) : (
        <ul class="org-list" aria-label={t('Deliveries')}>
          {deliveries.map((delivery) => (
            <DeliveryItem key={delivery.id} agentId={agentId} delivery={delivery} onRedelivered={prepend} />
          ))}
        </ul>
      )}
      <ErrorLine error={error} />
      <MoreButton onMore={hasNext ? () => load(page + 1) : null} busy={busy} />
    </>
  )
}
