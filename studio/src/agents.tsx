import type { AgentArchitecture, AgentV1, Catalogue } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { api } from './api.ts'
import { linkProps, navigate } from './router.ts'
import { ErrorLine, Field, Loading, problemOf } from './ui.tsx'

type AgentRow = {
  id: string
  name: string
  mode: string
  agentArchitecture: AgentArchitecture
  active: boolean
}

let catalogueCache: Promise<Catalogue> | null = null
/** The catalogue, asked for once per page load. */
export const loadCatalogue = () => {
  catalogueCache ??= api<{ data: Catalogue }>('/v1/catalogue').then((body) => body.data)
  return catalogueCache
}

const architectures: Array<{ id: AgentArchitecture; name: string; help: string }> = [
  { id: 'text', name: 'Text chat', help: 'Answers typed messages in the widget' },
  { id: 'pipeline', name: 'Voice (pipeline)', help: 'Speech to text, a language model, text to speech' },
  { id: 'realtime', name: 'Voice (realtime)', help: 'One speech-to-speech model' },
]

/** A select of catalogue entries; ones this deployment cannot serve are shown, disabled, with why. */
const Picker = ({
  name,
  label,
  options,
  initial,
  problem,
}: {
  name: string
  label: string
  /** The catalogue's default, chosen until the owner picks another. */
  initial?: string | undefined
  options: Array<{
    id: string
    name: string
    available?: boolean | undefined
    unavailableReason?: string | undefined
  }>
  problem?: string | undefined
}) => (
  <Field label={label} name={name} problem={problem}>
    <select id={name} name={name} required>
      {options.map((option) => (
        <option
          value={option.id}
          selected={option.id === initial}
          disabled={option.available === false}
          title={option.unavailableReason}
        >
          {option.name}
          {option.available === false ? ' (not available here)' : ''}
        </option>
      ))}
    </select>
  </Field>
)

/** Architecture first, then only the fields that architecture uses, filled from the catalogue. */
const CreateAgent = ({ onCreated }: { onCreated: (id: string) => void }) => {
  const [catalogue, setCatalogue] = useState<Catalogue | null>(null)
  const [architecture, setArchitecture] = useState<AgentArchitecture>('text')
  const [tts, setTts] = useState<string>('')
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    loadCatalogue().then(setCatalogue, setError)
  }, [])
  if (!catalogue) return error ? <ErrorLine error={error} /> : <Loading />

  const models = catalogue.models.filter((model) => model.architectures.includes(architecture))
  const chosenTts = tts || catalogue.defaults.tts || catalogue.tts[0]?.id || ''
  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    const value = (name: string) => (form.get(name) === null ? undefined : String(form.get(name)))
    setError(null)
    try {
      const created = await api<{ data: { id: string } }>('/v1/agents', {
        method: 'POST',
        json: {
          name: value('name'),
          agentArchitecture: architecture,
          systemPrompt: value('systemPrompt'),
          ...(architecture !== 'realtime' ? { model: value('model') } : {}),
          ...(architecture === 'pipeline'
            ? { stt: value('stt'), tts: chosenTts, voiceId: value('voiceId') }
            : {}),
          ...(architecture === 'realtime'
            ? { realtimeProvider: value('realtimeProvider'), voiceId: value('voiceId') }
            : {}),
        },
      })
      onCreated(created.data.id)
    } catch (caught) {
      setError(caught)
    }
  }
  const voiceProvider = architecture === 'realtime' ? catalogue.realtimeProviders[0]?.id : chosenTts
  return (
    <form class="card" onSubmit={submit} aria-labelledby="create-agent">
      <h2 id="create-agent">New agent</h2>
      <fieldset>
        <legend>What should it do?</legend>
        {architectures.map((option) => (
          <label class="choice">
            <input
              type="radio"
              name="architecture"
              value={option.id}
              checked={architecture === option.id}
              onChange={() => setArchitecture(option.id)}
            />
            <span>
              <strong>{option.name}</strong> <span class="muted">{option.help}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <Field label="Name" name="name" problem={problemOf(error, 'name')}>
        <input id="name" name="name" required minLength={2} placeholder="Support Bot" />
      </Field>
      <Field
        label="What it is told (system prompt)"
        name="systemPrompt"
        problem={problemOf(error, 'systemPrompt')}
      >
        <textarea
          id="systemPrompt"
          name="systemPrompt"
          required
          rows={4}
          placeholder="You help customers of …"
        />
      </Field>
      {architecture !== 'realtime' ? (
        <Picker name="model" label="Language model" options={models} initial={catalogue.defaults.model} />
      ) : null}
      {architecture === 'pipeline' ? (
        <>
          <Picker
            name="stt"
            label="Speech to text"
            options={catalogue.stt}
            initial={catalogue.defaults.stt}
          />
          <Field label="Text to speech" name="tts">
            <select
              id="tts"
              name="tts"
              value={chosenTts}
              onChange={(event) => setTts(event.currentTarget.value)}
            >
              {catalogue.tts.map((option) => (
                <option value={option.id}>{option.name}</option>
              ))}
            </select>
          </Field>
        </>
      ) : null}
      {architecture === 'realtime' ? (
        <Picker name="realtimeProvider" label="Realtime model" options={catalogue.realtimeProviders} />
      ) : null}
      {architecture !== 'text' ? (
        <Picker
          name="voiceId"
          label="Voice"
          initial={catalogue.defaults.voiceId}
          options={catalogue.voices
            .filter((voice) => voice.provider === voiceProvider)
            .map((voice) => ({ id: voice.voiceId, name: voice.voiceName }))}
        />
      ) : null}
      <ErrorLine error={error} />
      <button type="submit" class="primary">
        Create agent
      </button>
    </form>
  )
}

export const AgentsPage = () => {
  const [agents, setAgents] = useState<AgentRow[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [creating, setCreating] = useState(false)
  useEffect(() => {
    api<{ data: AgentRow[] }>('/v1/agents?limit=100').then((body) => setAgents(body.data), setError)
  }, [])
  return (
    <section aria-labelledby="agents-title">
      <div class="row">
        <h1 id="agents-title">Agents</h1>
        <button type="button" class="primary" onClick={() => setCreating(!creating)}>
          {creating ? 'Cancel' : 'New agent'}
        </button>
      </div>
      {creating ? <CreateAgent onCreated={(id) => navigate(`/agents/${id}`)} /> : null}
      <ErrorLine error={error} />
      {agents === null ? (
        error ? null : (
          <Loading />
        )
      ) : agents.length === 0 ? (
        <p class="empty">No agents yet. Create one to put on your website.</p>
      ) : (
        <ul class="list">
          {agents.map((agent) => (
            <li>
              <a {...linkProps(`/agents/${agent.id}`)}>{agent.name}</a>{' '}
              <span class="muted">
                {architectures.find((option) => option.id === agent.agentArchitecture)?.name} ·{' '}
                {agent.active ? 'live' : 'inactive'}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

/** One agent: its settings, live or not, the script tag, and deletion with confirmation. */
export const AgentPage = ({ id }: { id: string }) => {
  const [agent, setAgent] = useState<AgentV1 | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [saved, setSaved] = useState(false)
  useEffect(() => {
    api<{ data: AgentV1 }>(`/v1/agents/${id}`).then((body) => setAgent(body.data), setError)
  }, [id])
  if (!agent) return error ? <ErrorLine error={error} /> : <Loading />

  const patch = async (changes: Record<string, unknown>) => {
    setError(null)
    setSaved(false)
    try {
      await api(`/v1/agents/${id}`, { method: 'PATCH', json: changes })
      const fresh = await api<{ data: AgentV1 }>(`/v1/agents/${id}`)
      setAgent(fresh.data)
      setSaved(true)
    } catch (caught) {
      setError(caught)
    }
  }
  const save = (event: SubmitEvent) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    void patch({ name: String(form.get('name')), systemPrompt: String(form.get('systemPrompt')) })
  }
  const remove = async () => {
    if (!confirm(`Delete ${agent.name}? Its conversations stay; the agent cannot be restored.`)) return
    try {
      await api(`/v1/agents/${id}`, { method: 'DELETE' })
      navigate('/agents')
    } catch (caught) {
      setError(caught)
    }
  }
  return (
    <section aria-labelledby="agent-title">
      <p>
        <a {...linkProps('/agents')}>← Agents</a>
      </p>
      <div class="row">
        <h1 id="agent-title">{agent.name}</h1>
        <span class={agent.active ? 'badge live' : 'badge'}>{agent.active ? 'Live' : 'Inactive'}</span>
      </div>
      <p class="muted">
        Id <code>{agent.id}</code> · {agent.agentArchitecture}
        {agent.model ? ` · ${agent.model}` : ''}
      </p>
      <div class="row">
        <button type="button" onClick={() => patch({ active: !agent.active })}>
          {agent.active ? 'Take it offline' : 'Make it live'}
        </button>
        <a class="button" {...linkProps(`/install?agent=${agent.id}`)}>
          Put it on your website
        </a>
      </div>
      <form class="card" onSubmit={save}>
        <Field label="Name" name="name" problem={problemOf(error, 'name')}>
          <input id="name" name="name" value={agent.name} required />
        </Field>
        <Field
          label="What it is told (system prompt)"
          name="systemPrompt"
          problem={problemOf(error, 'systemPrompt')}
        >
          <textarea
            id="systemPrompt"
            name="systemPrompt"
            rows={6}
            value={agent.systemPrompt ?? ''}
            required
          />
        </Field>
        <ErrorLine error={error} />
        {saved ? (
          <p class="ok" role="status">
            Saved.
          </p>
        ) : null}
        <div class="row">
          <button type="submit" class="primary">
            Save
          </button>
          <button type="button" class="danger" onClick={remove}>
            Delete agent
          </button>
        </div>
      </form>
    </section>
  )
}
