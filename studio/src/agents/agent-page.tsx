import type { AgentDraft, AgentV1, Catalogue } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { t } from '../i18n.tsx'
import { linkProps, navigate } from '../router.ts'
import { ErrorLine, Loading } from '../ui.tsx'
import { mayManage } from './access.ts'
import { CallMe } from './call-me.tsx'
import { deleteAgent, getAgent, loadCatalogue, setAgentActive } from './client.ts'
import { AgentFunctions } from './functions/agent-functions.tsx'
import { architectureName } from './pickers.tsx'
import { SettingsForm } from './settings-form.tsx'
import { TestsPanel } from './tests-panel.tsx'
import { TryIt } from './try-it.tsx'
import { agentWithDraft, getDraft } from './versions-client.ts'
import { VersionsPanel } from './versions-panel.tsx'

/** One agent: live or not, where to install it, every setting, and deletion with confirmation. */
export const AgentPage = ({ id }: { id: string }) => {
  const [agent, setAgent] = useState<AgentV1 | null>(null)
  // The form edits the draft; the page's other parts show the published (live) agent.
  const [draft, setDraft] = useState<AgentDraft | null>(null)
  const [catalogue, setCatalogue] = useState<Catalogue | null>(null)
  const [error, setError] = useState<unknown>(null)
  const reload = async () => {
    const [loaded, drafted] = await Promise.all([getAgent(id), getDraft(id)])
    setAgent(loaded)
    setDraft(drafted)
  }
  useEffect(() => {
    Promise.all([getAgent(id), getDraft(id), loadCatalogue()]).then(([loaded, drafted, entries]) => {
      setAgent(loaded)
      setDraft(drafted)
      setCatalogue(entries)
    }, setError)
  }, [id])
  if (!agent || !draft || !catalogue) return error ? <ErrorLine error={error} /> : <Loading />

  const toggleLive = async () => {
    setError(null)
    try {
      setAgent(await setAgentActive(id, !agent.active))
      setDraft(await getDraft(id))
    } catch (caught) {
      setError(caught)
    }
  }
  const remove = async () => {
    if (
      !confirm(
        t('Delete {name}? Its conversations stay; the agent cannot be restored.', { name: agent.name }),
      )
    )
      return
    setError(null)
    try {
      await deleteAgent(id)
      navigate('/agents')
    } catch (caught) {
      setError(caught)
    }
  }
  return (
    <section aria-labelledby="agent-title">
      <p>
        <a class="back" {...linkProps('/agents')}>
          {t('Agents')}
        </a>
      </p>
      <div class="row">
        <h1 id="agent-title">{agent.name}</h1>
        <span class={agent.active ? 'badge live' : 'badge'}>{agent.active ? t('Live') : t('Inactive')}</span>
      </div>
      <p class="muted">
        {architectureName(agent.agentArchitecture)} · {t('id')} <code id="agent-id">{agent.id}</code>
      </p>
      <div class="row">
        {mayManage(agent) ? (
          <button type="button" onClick={toggleLive}>
            {agent.active ? t('Take it offline') : t('Make it live')}
          </button>
        ) : null}
        <a class="button" {...linkProps(`/install?agent=${agent.id}`)}>
          {t('Put it on your website')}
        </a>
      </div>
      <ErrorLine error={error} />
      <TryIt key={agent.id} agent={agent} />
      {agent.agentArchitecture === 'text' ? null : <CallMe key={agent.id} agent={agent} />}
      <SettingsForm agent={agentWithDraft(agent, draft)} catalogue={catalogue} onSaved={reload} />
      <AgentFunctions agent={agentWithDraft(agent, draft)} onChanged={reload} />
      <VersionsPanel agent={agent} draft={draft} onChanged={reload} />
      <TestsPanel agent={agent} />
      {mayManage(agent) ? (
        <div class="card danger-zone">
          <h2>{t('Delete')}</h2>
          <p class="muted">
            {t('Conversations and their costs are kept; the agent stops answering at once.')}
          </p>
          <div>
            <button type="button" class="danger" onClick={remove}>
              {t('Delete agent')}
            </button>
          </div>
        </div>
      ) : null}
    </section>
  )
}
