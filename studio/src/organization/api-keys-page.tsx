import type { ApiKey, CreatedApiKey } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { session } from '../api.ts'
import { t } from '../i18n.tsx'
import { ErrorLine, Loading } from '../ui.tsx'
import { listKeys } from './client.ts'
import { MoreButton, usePages } from './format.tsx'
import { KeyItem } from './key-item.tsx'
import { CreatedKeyBox, NewKeyForm } from './new-key.tsx'

/**
 * The organization's API keys. Owners create, disable, enable, revoke and edit them; admins and
 * members see the list only, as the API allows.
 */
export const ApiKeysPage = () => {
  const canManage = session.value?.organization.role === 'owner'
  const [keys, setKeys] = useState<ApiKey[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [created, setCreated] = useState<CreatedApiKey | null>(null)
  const { visible, more } = usePages(keys)
  useEffect(() => {
    listKeys().then(setKeys, setError)
  }, [])
  const replace = (changed: ApiKey) =>
    setKeys((shown) => shown?.map((key) => (key.id === changed.id ? changed : key)) ?? null)
  const add = (key: CreatedApiKey) => {
    setCreated(key)
    const { key: _secret, ...listed } = key
    setKeys((shown) => [listed, ...(shown ?? [])])
  }

  return (
    <section aria-labelledby="api-keys-title">
      <h1 id="api-keys-title">{t('API keys')}</h1>
      <p class="muted">
        {t(
          'Secret keys call the API from your servers; widget keys run the chat widget on your website. A key is shown in full only when it is created.',
        )}
      </p>
      {created ? <CreatedKeyBox created={created} onDone={() => setCreated(null)} /> : null}
      {canManage ? (
        <NewKeyForm onCreated={add} />
      ) : (
        <p class="notice">{t('Only owners create, disable and revoke keys. You can see them here.')}</p>
      )}
      <h2>{t('Keys')}</h2>
      <ErrorLine error={error} />
      {visible === null ? (
        error ? null : (
          <Loading />
        )
      ) : visible.length === 0 ? (
        <p class="empty">{t('No API keys yet.')}</p>
      ) : (
        <ul class="org-list" aria-label={t('API keys')}>
          {visible.map((key) => (
            <KeyItem key={key.id} apiKey={key} canManage={canManage} onChanged={replace} />
          ))}
        </ul>
      )}
      <MoreButton onMore={more} />
    </section>
  )
}
