import type { AgentV1 } from '@parley/shared'
import { useRef, useState } from 'preact/hooks'
import { language, t } from '../i18n.tsx'
import { lazy } from '../lazy.tsx'
import { theme } from '../theme.tsx'
import { ErrorLine } from '../ui.tsx'
import type { ParleyWidget } from '../widget-embed.tsx'

const EmbeddedWidget = lazy(() => import('../widget-embed.tsx').then((module) => module.EmbeddedWidget))

/**
 * Try it: the widget visitors get, inline on the agent's page and talking to this agent as the
 * signed-in member (the studio token, so an agent that is not live yet can be tried too). Text
 * agents chat; voice agents open voice first. Each message is answered with the agent as it is
 * saved now; a reset ends the conversation and starts another, greeting included. Hiding it keeps
 * the conversation: opened again, it carries on. "Talk to the draft" (text agents) talks to the
 * saved, unpublished draft in a conversation of its own; unticked, to the live version.
 */
export const TryIt = ({ agent }: { agent: AgentV1 }) => {
  const [conversation, setConversation] = useState(0)
  // The agent as it was when this conversation started: a save after that is pointed out.
  const [startedAt, setStartedAt] = useState(agent.updatedAt)
  const [isResetting, setResetting] = useState(false)
  // Closed until asked for: an open panel starts a conversation, and a visit to the page should not.
  const [isOpen, setOpen] = useState(false)
  const [error, setError] = useState<unknown>(null)
  // Text agents may be tried on the saved draft (a studio-only session flag); visitors never can.
  const [isDraft, setDraft] = useState(false)
  const widget = useRef<ParleyWidget | null>(null)
  const isVoice = agent.agentArchitecture !== 'text'

  const reset = async () => {
    setResetting(true)
    setError(null)
    try {
      // Ends it on the server too (billing closed, webhook sent), then a new widget starts afresh.
      await widget.current?.endConversation()
      setStartedAt(agent.updatedAt)
      setConversation((count) => count + 1)
    } catch (caught) {
      setError(caught)
    } finally {
      setResetting(false)
    }
  }

  return (
    <section class="card try-it" aria-labelledby="try-it-title">
      <div class="row">
        <h2 id="try-it-title">{t('Try it')}</h2>
        {isOpen ? (
          <div class="row">
            <button type="button" onClick={reset} disabled={isResetting} aria-busy={isResetting}>
              {isResetting ? t('Resetting…') : t('Reset conversation')}
            </button>
            <button
              type="button"
              aria-expanded="true"
              aria-controls="try-it-widget"
              onClick={() => setOpen(false)}
            >
              {t('Hide')}
            </button>
          </div>
        ) : (
          <button
            type="button"
            class="primary"
            aria-expanded="false"
            aria-controls="try-it-widget"
            onClick={() => setOpen(true)}
          >
            {t('Talk to it')}
          </button>
        )}
      </div>
      <p class="muted">
        {t(
          'The widget your visitors get, talking to this agent. These conversations are billed and listed like any other.',
        )}
      </p>
      {agent.active ? null : (
        <p class="try-it-note">
          {t('This agent is not live: only the studio can talk to it until you make it live.')}
        </p>
      )}
      {isVoice ? null : (
        <label class="try-it-draft">
          <input
            type="checkbox"
            checked={isDraft}
            onChange={(event) => setDraft((event.currentTarget as HTMLInputElement).checked)}
          />{' '}
          {t('Talk to the draft')}
        </label>
      )}
      {isDraft ? (
        <p class="try-it-note">
          {t('Replies use the saved draft, not the live version. Visitors still get the live version.')}
        </p>
      ) : null}
      {isVoice ? (
        <p class="muted">{t('It answers by voice: press the microphone and let your browser use it.')}</p>
      ) : null}
      {isOpen && agent.updatedAt !== startedAt ? (
        <p class="try-it-note" role="status">
          {t(
            'Settings saved: replies follow them from your next message. Reset to start over with the greeting.',
          )}
        </p>
      ) : null}
      <ErrorLine error={error} />
      <div id="try-it-widget">
        {isOpen ? (
          <EmbeddedWidget
            key={conversation}
            onElement={(element) => {
              widget.current = element
            }}
            attributes={{
              'agent-id': agent.id,
              'base-url': location.origin,
              position: 'inline',
              lang: language.value,
              theme: theme.value === 'system' ? null : theme.value,
              mode: isVoice ? 'voice' : null,
              'agent-version': isDraft && !isVoice ? 'draft' : null,
            }}
          />
        ) : null}
      </div>
    </section>
  )
}
