import type { AuditEntry } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { session } from '../api.ts'
import { t } from '../i18n.tsx'
import { ErrorLine, Loading } from '../ui.tsx'
import { readAuditLog } from './client.ts'
import { when } from './format.tsx'

const actorOf = (entry: AuditEntry) =>
  entry.actor.kind === 'member'
    ? t('member {id}', { id: entry.actor.id ?? '' })
    : entry.actor.kind === 'key'
      ? t('API key {id}', { id: entry.actor.id ?? '' })
      : entry.actor.kind === 'operator'
        ? t('operator')
        : t('Parley (a scheduled job)')

/** What changed, in short: field names, providers, counts. */
const detailsOf = (entry: AuditEntry) =>
  Object.entries(entry.details)
    .map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : String(value)}`)
    .join('; ')

/** Who changed what in the organization, newest first (owners and admins). */
export const AuditPage = () => {
  const canSee = session.value?.organization.role !== 'member'
  const [entries, setEntries] = useState<AuditEntry[] | null>(null)
  const [next, setNext] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  const load = (cursor: string | null) =>
    readAuditLog(cursor).then(
      (page) => {
        setEntries((shown) => (cursor ? [...(shown ?? []), ...page.data] : page.data))
        setNext(page.nextCursor)
      },
      (caught: unknown) => setError(caught),
    )
  useEffect(() => {
    if (canSee) void load(null)
  }, [])
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">{t('Audit log')}</h1>
      {!canSee ? (
        <p class="muted">{t('Owners and admins can read the audit log.')}</p>
      ) : entries === null ? (
        error ? null : (
          <Loading />
        )
      ) : entries.length === 0 ? (
        <p class="empty">{t('No changes recorded yet.')}</p>
      ) : (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a wide table scrolls on a phone; axe wants its region reachable by keyboard
        <section class="scroll" tabIndex={0} aria-labelledby="audit-title">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('When')}</th>
                <th scope="col">{t('What')}</th>
                <th scope="col">{t('Who')}</th>
                <th scope="col">{t('From')}</th>
                <th scope="col">{t('Details')}</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr>
                  <td>{when(entry.createdAt)}</td>
                  <td>
                    {entry.action}
                    {entry.targetId ? <small class="muted"> {entry.targetId}</small> : null}
                  </td>
                  <td>{actorOf(entry)}</td>
                  <td>{entry.ip ?? '—'}</td>
                  <td>{detailsOf(entry)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {next ? (
        <button type="button" onClick={() => void load(next)}>
          {t('More')}
        </button>
      ) : null}
      <ErrorLine error={error} />
    </section>
  )
}
