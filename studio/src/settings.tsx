import { useEffect, useState } from 'preact/hooks'
import { forgetCatalogue } from './agents/client.ts'
import { api, session } from './api.ts'
import { t } from './i18n.tsx'
import { describedBy, ErrorLine, Field, Loading, problemOf } from './ui.tsx'

type ProviderKeys = { providers: Array<{ provider: string; last4: string; updatedAt: string }> }

const PROVIDERS = ['openai', 'groq', 'gemini', 'anthropic', 'deepgram', 'elevenlabs', 'cartesia']

/**
 * The organization's own provider keys (the page an agent's missing-key answer points to): stored
 * encrypted, shown by their last four characters; owners and admins change them.
 */
export const ProviderKeysPage = () => {
  const organizationId = session.value?.organization.id ?? ''
  const [keys, setKeys] = useState<ProviderKeys | null>(null)
  const [error, setError] = useState<unknown>(null)
  const path = `/api/organizations/${organizationId}/provider-keys`
  useEffect(() => {
    api<ProviderKeys>(path).then(setKeys, setError)
  }, [path])
  const update = async (keysToSet: Record<string, string | null>) => {
    setError(null)
    try {
      setKeys(await api<ProviderKeys>(path, { method: 'PUT', json: { keys: keysToSet } }))
      forgetCatalogue()
    } catch (caught) {
      setError(caught)
    }
  }
  const add = (event: SubmitEvent) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    void update({ [String(form.get('provider'))]: String(form.get('key')) })
    ;(event.currentTarget as HTMLFormElement).reset()
  }
  return (
    <section aria-labelledby="provider-keys-title">
      <h1 id="provider-keys-title">{t('Provider keys')}</h1>
      <p class="muted">
        {t(
          "Your own keys for model and speech providers. Agents using a provider you hold a key for are served with it and billed by that provider; others use the platform's keys.",
        )}
      </p>
      <ErrorLine error={error} />
      {keys === null ? (
        error ? null : (
          <Loading />
        )
      ) : keys.providers.length === 0 ? (
        <p class="empty">{t('No provider keys stored.')}</p>
      ) : (
        <ul class="list">
          {keys.providers.map((key) => (
            <li>
              <strong>{key.provider}</strong> <code>…{key.last4}</code>{' '}
              <button type="button" class="danger small" onClick={() => update({ [key.provider]: null })}>
                {t('Remove')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form class="card" onSubmit={add}>
        <Field label={t('Provider')} name="provider">
          <select {...describedBy('provider', {})}>
            {PROVIDERS.map((provider) => (
              <option value={provider}>{provider}</option>
            ))}
          </select>
        </Field>
        <Field label={t('Key')} name="key" problem={problemOf(error, 'keys')}>
          <input
            {...describedBy('key', { problem: problemOf(error, 'keys') })}
            type="password"
            required
            minLength={8}
            autocomplete="off"
          />
        </Field>
        <button type="submit" class="primary">
          {t('Save key')}
        </button>
      </form>
    </section>
  )
}
