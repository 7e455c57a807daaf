import type { AgentListItem } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { t } from '../i18n.tsx'
import { linkProps, navigate } from '../router.ts'
import { ErrorLine, Loading } from '../ui.tsx'
import { listAgentsPage } from './client.ts'
import { CreateAgent } from './create-agent.tsx'
import { architectureName } from './pickers.tsx'

/** The organization's agents, and the form for a new one. */
export const AgentsPage = () => {
  const [agents, setAgents] = useState<AgentListItem[] | null>(null)
  const [page, setPage] = useState(0)
  const [hasNext, setHasNext] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [isCreating, setCreating] = useState(false)
  const load = async (next: number) => {
    setError(null)
    try {
      const body = await listAgentsPage(next)
      setAgents((shown) => (next === 1 ? body.data : [...(shown ?? []), ...body.data]))
      setPage(next)
      setHasNext(body.pagination.hasNext)
    } catch (caught) {
      setError(caught)
    }
  }
  useEffect(() => {
    void load(1)
  }, [])
  return (
    <section aria-labelledby="agents-title">
      <div class="row">
        <h1 id="agents-title">{t('Agents')}</h1>
        <button
          type="button"
          class="primary"
          aria-expanded={isCreating}
          onClick={() => setCreating(!isCreating)}
        >
          {isCreating ? t('Cancel') : t('New agent')}
        </button>
      </div>
      {isCreating ? <CreateAgent onCreated={(id) => navigate(`/agents/${id}`)} /> : null}
      <ErrorLine error={error} />
      {agents === null ? (
        error ? null : (
          <Loading />
        )
      ) : agents.length === 0 ? (
        <div class="empty">
          <p>{t('No agents yet. Create one to put on your website.')}</p>
          <ol class="steps">
            <li>{t('Create an agent: choose text or voice, and tell it what to do.')}</li>
            <li>{t('Try it on its page, then make it live.')}</li>
            <li>
              <a {...linkProps('/install')}>{t('Put it on your website')}</a>
              {t(': a key for your domain and one script tag.')}
            </li>
            <li>
              <a {...linkProps('/conversations')}>{t('Read what visitors said')}</a>
            </li>
          </ol>
        </div>
      ) : (
        <ul class="list">
          {agents.map((agent) => (
            <li>
              <a {...linkProps(`/agents/${agent.id}`)}>{agent.name}</a>{' '}
              <span class="muted">
                {architectureName(agent.agentArchitecture)} · {agent.active ? t('live') : t('inactive')}
              </span>
            </li>
          ))}
        </ul>
      )}
      {hasNext ? (
        <button type="button" onClick={() => load(page + 1)}>
          {t('More')}
        </button>
      ) : null}
    </section>
  )
}
