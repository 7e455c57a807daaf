import type { LedgerEntry, V1Organization } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { session } from '../api.ts'
import { t } from '../i18n.tsx'
import { ExportButton } from '../records/export.tsx'
import { ErrorLine, Loading } from '../ui.tsx'
import { getOrganization, readLedger } from './client.ts'
import { MoreButton, usd, when } from './format.tsx'

const tierName = (tier: V1Organization['data']['tier']) =>
  ({ free: t('Free'), pro: t('Pro'), enterprise: t('Enterprise') })[tier]

const kindName = (kind: string) => {
  const names: Record<string, string> = {
    trial: t('Trial credit'),
    grant: t('Credit added'),
    correction: t('Correction'),
    usage: t('Usage'),
  }
  return names[kind] ?? kind
}

/** Credits: the balance, tier and rate limit every role may read; the ledger for owners and admins. */
export const CreditsPage = () => {
  const role = session.value?.organization.role
  const [organization, setOrganization] = useState<V1Organization['data'] | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    getOrganization().then(setOrganization, setError)
  }, [])
  return (
    <section aria-labelledby="credits-title">
      <h1 id="credits-title">{t('Credits')}</h1>
      <ErrorLine error={error} />
      {organization ? (
        <dl class="org-facts">
          <div>
            <dt>{t('Balance')}</dt>
            <dd id="credit-balance">{usd(organization.creditBalanceUsd)}</dd>
          </div>
          <div>
            <dt>{t('Plan')}</dt>
            <dd>{tierName(organization.tier)}</dd>
          </div>
          <div>
            <dt>{t('API requests per minute')}</dt>
            <dd>{organization.rateLimitPerMinute}</dd>
          </div>
        </dl>
      ) : error ? null : (
        <Loading />
      )}
      <h2 id="ledger-title">{t('Ledger')}</h2>
      {role === 'member' ? (
        <p class="notice" id="ledger-refused">
          {t('Only owners and admins can see the ledger of credits added and spent.')}
        </p>
      ) : (
        <>
          <ExportButton kind="ledger" />
          <Ledger />
        </>
      )}
    </section>
  )
}

/** Every credit added or spent, newest first, 20 at a time. */
const Ledger = () => {
  const organizationId = session.value?.organization.id ?? ''
  const [entries, setEntries] = useState<LedgerEntry[] | null>(null)
  const [next, setNext] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const load = async (cursor: string | null) => {
    setBusy(true)
    setError(null)
    try {
      const page = await readLedger(organizationId, cursor)
      setEntries((shown) => (cursor ? [...(shown ?? []), ...page.entries] : page.entries))
      setNext(page.nextCursor)
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  useEffect(() => {
    void load(null)
  }, [organizationId])
  return (
    <>
      {entries === null ? (
        error ? null : (
          <Loading />
        )
      ) : entries.length === 0 ? (
        <p class="empty">{t('No credit has moved yet.')}</p>
      ) : (
        <table class="org-table" aria-labelledby="ledger-title">
          <thead>
            <tr>
              <th scope="col">{t('When')}</th>
              <th scope="col">{t('What')}</th>
              <th scope="col">{t('Amount')}</th>
              <th scope="col">{t('Balance after')}</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr>
                <td>{when(entry.createdAt)}</td>
                <td>
                  {kindName(entry.kind)}
                  <div class="muted">{entry.reason}</div>
                </td>
                <td class={entry.amountUsd < 0 ? 'debit' : 'credit'}>{usd(entry.amountUsd)}</td>
                <td>{usd(entry.balanceAfterUsd)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorLine error={error} />
      <MoreButton onMore={next ? () => load(next) : null} busy={busy} />
    </>
  )
}
