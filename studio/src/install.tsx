import type { ApiKey, CreatedApiKey } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { api, session } from './api.ts'
import { describedBy, ErrorLine, Field, Loading, problemOf } from './ui.tsx'

type AgentRow = { id: string; name: string; agentArchitecture: string }

/** The exact tag to paste before </body>. */
export const snippetFor = ({ agentId, key }: { agentId: string; key: string }) =>
  `<script src="${location.origin}/widget/parley.js" data-agent-id="${agentId}" data-key="${key}" async></script>`

/**
 * Install: widget keys with the domains they may be used from, and the script tag of an agent.
 * A key is shown in full once, when it is made (it is stored hashed): the tag made then carries it.
 */
export const InstallPage = () => {
  const [keys, setKeys] = useState<ApiKey[] | null>(null)
  const [agents, setAgents] = useState<AgentRow[]>([])
  const [agentId, setAgentId] = useState(new URLSearchParams(location.search).get('agent') ?? '')
  const [created, setCreated] = useState<CreatedApiKey | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [copied, setCopied] = useState(false)
  const isOwner = session.value?.organization.role === 'owner'

  const load = () =>
    api<{ apiKeys: ApiKey[] }>('/api/api-keys').then(
      (body) => setKeys(body.apiKeys.filter((key) => key.type === 'widget')),
      setError,
    )
  useEffect(() => {
    void load()
    api<{ data: AgentRow[] }>('/v1/agents?limit=100').then((body) => {
      setAgents(body.data)
      setAgentId((chosen) => chosen || body.data[0]?.id || '')
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
      setCreated(
        await api<CreatedApiKey>('/api/api-keys', {
          method: 'POST',
          json: { name: String(form.get('keyName')), type: 'widget', allowedDomains: domains },
        }),
      )
      await load()
    } catch (caught) {
      setError(caught)
    }
  }
  const revoke = async (key: ApiKey) => {
    if (!confirm(`Revoke ${key.name}? Widgets using it stop at once.`)) return
    try {
      await api(`/api/api-keys/${key.id}/revoke`, { method: 'POST' })
      await load()
    } catch (caught) {
      setError(caught)
    }
  }
  const snippet = created && agentId ? snippetFor({ agentId, key: created.key }) : null
  const copy = async () => {
    if (!snippet) return
    await navigator.clipboard?.writeText(snippet).catch(() => undefined)
    setCopied(true)
  }

  return (
    <section aria-labelledby="install-title">
      <h1 id="install-title">Put an agent on your website</h1>
      <ErrorLine error={error} />
      <Field label="Agent" name="agent">
        <select id="agent" value={agentId} onChange={(event) => setAgentId(event.currentTarget.value)}>
          {agents.map((agent) => (
            <option value={agent.id}>{agent.name}</option>
          ))}
        </select>
      </Field>
      {isOwner ? (
        <form class="card" onSubmit={create} aria-labelledby="new-key">
          <h2 id="new-key">New widget key</h2>
          <Field label="Name" name="keyName" problem={problemOf(error, 'name')}>
            <input
              {...describedBy('keyName', { problem: problemOf(error, 'name') })}
              required
              placeholder="Shop website"
            />
          </Field>
          <Field
            label="Your website's domains (one or more)"
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
            Create key and script tag
          </button>
        </form>
      ) : (
        <p class="muted">Only owners create keys; ask yours for a widget key.</p>
      )}
      {snippet ? (
        <div class="card" aria-live="polite">
          <h2>Paste this before &lt;/body&gt;</h2>
          <pre class="snippet" id="snippet">
            {snippet}
          </pre>
          <button type="button" onClick={copy}>
            {copied ? 'Copied' : 'Copy'}
          </button>
          <p class="muted">The key is shown only now: it is stored hashed.</p>
        </div>
      ) : null}
      <h2>Widget keys</h2>
      {keys === null ? (
        <Loading />
      ) : keys.length === 0 ? (
        <p class="empty">No widget keys yet.</p>
      ) : (
        <ul class="list">
          {keys.map((key) => (
            <li>
              <strong>{key.name}</strong> <code>{key.prefix}</code>{' '}
              <span class="muted">
                {key.allowedDomains.join(', ')} · {key.status}
              </span>{' '}
              {isOwner && key.status !== 'Revoked' ? (
                <button type="button" class="danger small" onClick={() => revoke(key)}>
                  Revoke
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
