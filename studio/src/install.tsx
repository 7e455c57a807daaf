import type { ApiKey, CreatedApiKey } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { listAgents } from './agents/client.ts'
import { api, session } from './api.ts'
import { t } from './i18n.tsx'
import { DEFAULT_CHOICES, isVoiceAgent, type WidgetChoices } from './install/choices.ts'
import type { AgentRow } from './install/customiser.tsx'
import { lazy } from './lazy.tsx'
import { keyStatusName, MoreButton, usePages } from './organization/format.tsx'
import { describedBy, ErrorLine, Field, Loading, problemOf } from './ui.tsx'

// The customiser and the tag come as one chunk of their own, when this page first shows.
const tools = () => import('./install/tools.ts')
const Customiser = lazy(() => tools().then((module) => module.Customiser))
const ScriptTag = lazy(() => tools().then((module) => module.ScriptTag))

/**
 * Install: how the widget looks and opens (the customiser, with a live preview), widget keys with
 * the domains they may be used from, and the script tag of an agent with those choices. A key is
 * shown in full once, when it is made (it is stored hashed): the tag made then carries it.
 */
export const InstallPage = () => {
  const [keys, setKeys] = useState<ApiKey[] | null>(null)
  const [agents, setAgents] = useState<AgentRow[]>([])
  const [agentId, setAgentId] = useState(new URLSearchParams(location.search).get('agent') ?? '')
  const [choices, setChoices] = useState<WidgetChoices>(DEFAULT_CHOICES)
  const [widgetKey, setWidgetKey] = useState('')
  const [error, setError] = useState<unknown>(null)
  const isOwner = session.value?.organization.role === 'owner'
  const agent = agents.find((row) => row.id === agentId)
  const pages = usePages(keys)

  const load = () =>
    api<{ apiKeys: ApiKey[] }>('/api/api-keys').then(
      (body) => setKeys(body.apiKeys.filter((key) => key.type === 'widget')),
      setError,
    )
  useEffect(() => {
    void load()
    listAgents().then((rows) => {
      setAgents(rows)
      setAgentId((chosen) => chosen || rows[0]?.id || '')
    }, setError)
  }, [])

  const create = async (event: SubmitEvent) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    const domains = String(form.get('allowedDomains') ?? '')
      .split(/[\s,]+/)
      .map((domain) => domain.trim())
      .filter(Boolean)
    setError(null)
    try {
      const created = await api<CreatedApiKey>('/api/api-keys', {
        method: 'POST',
        json: { name: String(form.get('keyName')), type: 'widget', allowedDomains: domains },
      })
      setWidgetKey(created.key)
      await load()
    } catch (caught) {
      setError(caught)
    }
  }
  const revoke = async (key: ApiKey) => {
    if (!confirm(t('Revoke {name}? Widgets using it stop at once.', { name: key.name }))) return
    try {
      await api(`/api/api-keys/${key.id}/revoke`, { method: 'POST' })
      await load()
    } catch (caught) {
      setError(caught)
    }
  }

  return (
    <section aria-labelledby="install-title">
      <h1 id="install-title">{t('Put an agent on your website')}</h1>
      <ErrorLine error={error} />
      <Field label={t('Agent')} name="agent">
        <select id="agent" value={agentId} onChange={(event) => setAgentId(event.currentTarget.value)}>
          {agents.map((row) => (
            <option value={row.id}>{row.name}</option>
          ))}
        </select>
      </Field>
      {agent ? (
        <Customiser
          agent={agent}
          voiceAgents={agents.filter(isVoiceAgent)}
          choices={choices}
          onChange={setChoices}
        />
      ) : null}
      {isOwner ? (
        <form class="card" onSubmit={create} aria-labelledby="new-key">
          <h2 id="new-key">{t('New widget key')}</h2>
          <Field label={t('Name')} name="keyName" problem={problemOf(error, 'name')}>
            <input
              {...describedBy('keyName', { problem: problemOf(error, 'name') })}
              required
              placeholder={t('Shop website')}
            />
          </Field>
          <Field
            label={t("Your website's domains (one or more)")}
            name="allowedDomains"
            problem={problemOf(error, 'allowedDomains')}
          >
            <input
              {...describedBy('allowedDomains', { problem: problemOf(error, 'allowedDomains') })}
              required
              placeholder="shop.example.com"
            />
          </Field>
          <button type="submit" class="primary">
            {t('Create key and script tag')}
          </button>
        </form>
      ) : (
        <p class="muted">{t('Only owners create keys; ask yours for a widget key.')}</p>
      )}
      {agent ? (
        <ScriptTag agent={agent} choices={choices} widgetKey={widgetKey} onKey={setWidgetKey} />
      ) : null}
      <h2>{t('Widget keys')}</h2>
      {pages.visible === null ? (
        <Loading />
      ) : pages.visible.length === 0 ? (
        <p class="empty">{t('No widget keys yet.')}</p>
      ) : (
        <ul class="list">
          {pages.visible.map((key) => (
            <li>
              <strong>{key.name}</strong> <code>{key.prefix}</code>{' '}
              <span class="muted">
                {key.allowedDomains.join(', ')} · {keyStatusName(key.status)}
              </span>{' '}
              {isOwner && key.status !== 'Revoked' ? (
                <button type="button" class="danger small" onClick={() => revoke(key)}>
                  {t('Revoke')}
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      <MoreButton onMore={pages.more} />
    </section>
  )
}
