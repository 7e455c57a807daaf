import type { AgentArchitecture, AgentListItem, AgentV1, Catalogue } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.ts'
import { t } from '../i18n.tsx'
import { ErrorLine } from '../ui.tsx'
import type { Draft } from './settings-draft.ts'

/** What a settings fieldset gets from the form: the draft, how to change it, the API's words. */
export type DraftProps = {
  draft: Draft
  set: (changes: Partial<Draft>) => void
  problem: (field: keyof Draft) => string | undefined
}

/** The ids of a group of checkboxes with `id` in or out. */
const toggled = (ids: string[], id: string, isOn: boolean) =>
  isOn ? [...ids.filter((each) => each !== id), id] : ids.filter((each) => each !== id)

/** A group's problem, under the group and tied to each of its checkboxes. */
const GroupProblem = ({ id, problem }: { id: string; problem: string | undefined }) =>
  problem ? (
    <small class="error" id={id}>
      {problem}
    </small>
  ) : null

/** Function calling and the built-in functions the catalogue offers (custom ones are below the form). */
export const ToolsFieldset = ({ draft, set, problem, catalogue }: DraftProps & { catalogue: Catalogue }) => (
  <fieldset aria-describedby={problem('enabledFunctions') ? 'enabledFunctions-problem' : undefined}>
    <legend>{t('Functions')}</legend>
    <label class="choice">
      <input
        type="checkbox"
        id="functionCallingEnabled"
        checked={draft.functionCallingEnabled}
        onChange={(event) => set({ functionCallingEnabled: event.currentTarget.checked })}
      />
      <span>{t('Let it call functions (the ones ticked here and its custom functions)')}</span>
    </label>
    <GroupProblem id="functionCallingEnabled-problem" problem={problem('functionCallingEnabled')} />
    {catalogue.functions.map((fn) => (
      <label class="choice">
        <input
          type="checkbox"
          name="enabledFunctions"
          value={fn.id}
          checked={draft.enabledFunctions.includes(fn.id)}
          disabled={!fn.available && !draft.enabledFunctions.includes(fn.id)}
          onChange={(event) =>
            set({ enabledFunctions: toggled(draft.enabledFunctions, fn.id, event.currentTarget.checked) })
          }
        />
        <span>
          {fn.name} <span class="muted">{fn.description}</span>
          {fn.available ? null : <span class="muted"> ({t('not offered here')})</span>}
        </span>
      </label>
    ))}
    <GroupProblem id="enabledFunctions-problem" problem={problem('enabledFunctions')} />
  </fieldset>
)

const isVoice = (architecture: AgentArchitecture) => architecture !== 'text'
const PAGE_SIZE = 50

/**
 * Other agents this one may hand the conversation to: the organization's agents on the same
 * channel (a chat to text agents, a call to voice agents), up to 10, a page of them at a time.
 */
export const HandoffFieldset = ({ draft, set, problem, agent }: DraftProps & { agent: AgentV1 }) => {
  const [candidates, setCandidates] = useState<AgentListItem[]>([])
  const [next, setNext] = useState<number | null>(1)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const loadPage = async (page: number) => {
    setBusy(true)
    setError(null)
    try {
      const answer = await api<{ data: AgentListItem[]; pagination: { hasNext: boolean } }>(
        `/v1/agents?page=${page}&limit=${PAGE_SIZE}`,
      )
      setCandidates((shown) => [...(page === 1 ? [] : shown), ...answer.data])
      setNext(answer.pagination.hasNext ? page + 1 : null)
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  useEffect(() => {
    void loadPage(1)
  }, [agent.id])
  const fitting = candidates.filter(
    (other) => other.id !== agent.id && isVoice(other.agentArchitecture) === isVoice(agent.agentArchitecture),
  )
  // A saved target not among the pages read (yet) still shows, so it can be taken off.
  const unlisted = draft.handoffAgentIds.filter((id) => !fitting.some((other) => other.id === id))
  const options = [
    ...fitting.map((other) => ({ id: other.id, name: other.name })),
    ...unlisted.map((id) => ({ id, name: id })),
  ]
  const issue = problem('handoffAgentIds')
  return (
    <fieldset aria-describedby={issue ? 'handoffAgentIds-problem' : 'handoffAgentIds-hint'}>
      <legend>{t('Handoff')}</legend>
      <small class="muted" id="handoffAgentIds-hint">
        {isVoice(agent.agentArchitecture)
          ? t('Voice agents this one may pass the call to (at most 10).')
          : t('Text agents this one may pass the chat to (at most 10).')}
      </small>
      {options.map((option) => (
        <label class="choice">
          <input
            type="checkbox"
            name="handoffAgentIds"
            value={option.id}
            checked={draft.handoffAgentIds.includes(option.id)}
            aria-invalid={issue ? true : undefined}
            onChange={(event) =>
              set({ handoffAgentIds: toggled(draft.handoffAgentIds, option.id, event.currentTarget.checked) })
            }
          />
          <span>{option.name}</span>
        </label>
      ))}
      {!busy && options.length === 0 && !error ? (
        <p class="muted">{t('No other agent to hand over to yet.')}</p>
      ) : null}
      <GroupProblem id="handoffAgentIds-problem" problem={issue} />
      <ErrorLine error={error} />
      {next !== null ? (
        <div>
          <button type="button" class="small" disabled={busy} onClick={() => loadPage(next)}>
            {busy ? t('Loading agents…') : t('Show more agents')}
          </button>
        </div>
      ) : null}
    </fieldset>
  )
}
