import type { ApiKey } from '@parley/shared'
import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import { t } from '../i18n.tsx'
import { describedBy, ErrorLine, Field, problemOf } from '../ui.tsx'
import { changeKey, type KeyAction, parseDomains, updateKeyDomains } from './client.ts'
import { keyStatusName, when } from './format.tsx'

const busyLabel = (action: KeyAction | 'domains') =>
  ({ disable: t('Disabling…'), enable: t('Enabling…'), revoke: t('Revoking…'), domains: t('Saving…') })[
    action
  ]

/**
 * One key: what it is and, for owners, what can be done to it. Revoking asks first, in place,
 * since it cannot be undone; a widget key's domains are edited in place.
 */
export const KeyItem = ({
  apiKey,
  canManage,
  onChanged,
}: {
  apiKey: ApiKey
  canManage: boolean
  onChanged: (key: ApiKey) => void
}) => {
  const [busy, setBusy] = useState<KeyAction | 'domains' | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [confirming, setConfirming] = useState(false)
  const [editing, setEditing] = useState(false)
  const confirmButton = useRef<HTMLButtonElement>(null)
  // Before paint, so the question and the focus on its answer arrive together.
  useLayoutEffect(() => {
    if (confirming) confirmButton.current?.focus()
  }, [confirming])

  const run = async (action: KeyAction | 'domains', call: () => Promise<ApiKey>) => {
    setBusy(action)
    setError(null)
    try {
      onChanged(await call())
      setConfirming(false)
      setEditing(false)
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(null)
    }
  }
  const saveDomains = (event: SubmitEvent) => {
    event.preventDefault()
    const text = String(
      new FormData(event.currentTarget as HTMLFormElement).get(`domains-${apiKey.id}`) ?? '',
    )
    void run('domains', () => updateKeyDomains(apiKey.id, parseDomains(text)))
  }
  const isRevoked = apiKey.status === 'Revoked'
  const domainsField = `domains-${apiKey.id}`
  const domainsProblem = problemOf(error, 'allowedDomains')

  return (
    <li class="org-item" aria-busy={busy !== null}>
      <div class="row">
        <strong>{apiKey.name}</strong>
        <span class="badge">{apiKey.type === 'secret' ? t('Secret key') : t('Widget key')}</span>
        <span class={`badge status-${apiKey.status.toLowerCase()}`}>{keyStatusName(apiKey.status)}</span>
      </div>
      <code class="prefix" dir="ltr">
        {apiKey.prefix}
      </code>
      {apiKey.type === 'widget' ? (
        <p class="muted">
          {t('Allowed domains:')} <span dir="ltr">{apiKey.allowedDomains.join(', ') || '—'}</span>
        </p>
      ) : null}
      <p class="muted">
        {t('Created {date}', { date: when(apiKey.created) })} ·{' '}
        {t('Expires {date}', { date: when(apiKey.expires) })}
      </p>
      {busy ? (
        <p class="muted" role="status">
          {busyLabel(busy)}
        </p>
      ) : null}
      {canManage && !isRevoked && editing ? (
        <form onSubmit={saveDomains} class="org-inline">
          <Field
            label={t('Allowed domains of {name}', { name: apiKey.name })}
            name={domainsField}
            problem={domainsProblem}
          >
            <input
              {...describedBy(domainsField, { problem: domainsProblem })}
              defaultValue={apiKey.allowedDomains.join(', ')}
              required
            />
          </Field>
          <div class="row">
            <button type="submit" class="primary small" disabled={busy !== null}>
              {t('Save domains')}
            </button>
            <button type="button" class="small" onClick={() => setEditing(false)}>
              {t('Cancel')}
            </button>
          </div>
        </form>
      ) : null}
      {canManage && !isRevoked && confirming ? (
        <div class="org-inline">
          <p>
            {t('Revoke {name} for good? Everything using it stops at once, and it cannot be enabled again.', {
              name: apiKey.name,
            })}
          </p>
          <div class="row">
            <button
              type="button"
              class="danger small"
              ref={confirmButton}
              disabled={busy !== null}
              onClick={() => run('revoke', () => changeKey(apiKey.id, 'revoke'))}
            >
              {t('Revoke for good')}
            </button>
            <button type="button" class="small" onClick={() => setConfirming(false)}>
              {t('Keep it')}
            </button>
          </div>
        </div>
      ) : null}
      {canManage && !isRevoked && !confirming && !editing ? (
        <div class="row">
          {apiKey.status === 'Active' ? (
            <button
              type="button"
              class="small"
              disabled={busy !== null}
              onClick={() => run('disable', () => changeKey(apiKey.id, 'disable'))}
            >
              {t('Disable {name}', { name: apiKey.name })}
            </button>
          ) : (
            <button
              type="button"
              class="small"
              disabled={busy !== null}
              onClick={() => run('enable', () => changeKey(apiKey.id, 'enable'))}
            >
              {t('Enable {name}', { name: apiKey.name })}
            </button>
          )}
          {apiKey.type === 'widget' ? (
            <button type="button" class="small" onClick={() => setEditing(true)}>
              {t('Edit domains')}
            </button>
          ) : null}
          <button type="button" class="danger small" onClick={() => setConfirming(true)}>
            {t('Revoke…')}
          </button>
        </div>
      ) : null}
      {domainsProblem ? null : <ErrorLine error={error} />}
    </li>
  )
}
