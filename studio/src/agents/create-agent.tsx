import type { AgentArchitecture, Catalogue } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { t } from '../i18n.tsx'
import { describedBy, ErrorLine, Field, Loading, problemOf } from '../ui.tsx'
import { createAgent, loadCatalogue, type NewAgent } from './client.ts'
import { architectureChoices, firstAvailable, modelsFor, Picker, voicesOf } from './pickers.tsx'

type Choices = { model: string; stt: string; tts: string; realtimeProvider: string; voiceId: string }

/** The catalogue's defaults for an architecture (each replaced by a servable entry if it is not). */
const defaultsFor = (catalogue: Catalogue, architecture: AgentArchitecture): Choices => {
  const tts = firstAvailable(catalogue.tts, catalogue.defaults.tts)
  const realtimeProvider = firstAvailable(catalogue.realtimeProviders)
  const voiceProvider = architecture === 'realtime' ? realtimeProvider : tts
  const voices = voicesOf(catalogue, voiceProvider)
  return {
    model: firstAvailable(modelsFor(catalogue, architecture), catalogue.defaults.model),
    stt: firstAvailable(catalogue.stt, catalogue.defaults.stt),
    tts,
    realtimeProvider,
    voiceId: firstAvailable(voices, catalogue.defaults.voiceId),
  }
}

/** What the chosen architecture uses, and nothing else. */
const bodyOf = (
  { name, systemPrompt, language }: { name: string; systemPrompt: string; language: string },
  architecture: AgentArchitecture,
  choices: Choices,
): NewAgent => {
  const common = { name, systemPrompt, language, agentArchitecture: architecture }
  if (architecture === 'text') return { ...common, model: choices.model }
  if (architecture === 'pipeline')
    return { ...common, model: choices.model, stt: choices.stt, tts: choices.tts, voiceId: choices.voiceId }
  return {
    ...common,
    realtimeProvider: choices.realtimeProvider as 'openai' | 'gemini',
    voiceId: choices.voiceId,
  }
}

/** Architecture first, then only the fields that architecture uses, filled from the catalogue. */
export const CreateAgent = ({ onCreated }: { onCreated: (id: string) => void }) => {
  const [catalogue, setCatalogue] = useState<Catalogue | null>(null)
  const [architecture, setArchitecture] = useState<AgentArchitecture>('text')
  const [choices, setChoices] = useState<Choices | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  useEffect(() => {
    loadCatalogue().then((loaded) => {
      setCatalogue(loaded)
      setChoices(defaultsFor(loaded, 'text'))
    }, setError)
  }, [])
  if (!catalogue || !choices) return error ? <ErrorLine error={error} /> : <Loading />

  const choose = (changes: Partial<Choices>) => {
    const next = { ...choices, ...changes }
    // A new speech provider brings its own voices.
    const voiceProvider = architecture === 'realtime' ? next.realtimeProvider : next.tts
    const voices = voicesOf(catalogue, voiceProvider)
    if (!voices.some((voice) => voice.id === next.voiceId))
      next.voiceId = firstAvailable(voices, catalogue.defaults.voiceId)
    setChoices(next)
  }
  const pickArchitecture = (next: AgentArchitecture) => {
    setArchitecture(next)
    setChoices(defaultsFor(catalogue, next))
  }
  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    const text = (name: string) => String(form.get(name) ?? '')
    setError(null)
    setBusy(true)
    try {
      const body = bodyOf(
        { name: text('name'), systemPrompt: text('systemPrompt'), language: text('language') },
        architecture,
        choices,
      )
      onCreated((await createAgent(body)).id)
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  const voiceProvider = architecture === 'realtime' ? choices.realtimeProvider : choices.tts
  const problem = (field: string) => problemOf(error, field)
  return (
    <form class="card" onSubmit={submit} aria-labelledby="create-agent">
      <h2 id="create-agent">{t('New agent')}</h2>
      <fieldset>
        <legend>{t('What should it do?')}</legend>
        {architectureChoices().map((option) => (
          <label class="choice">
            <input
              type="radio"
              name="architecture"
              value={option.id}
              checked={architecture === option.id}
              onChange={() => pickArchitecture(option.id)}
            />
            <span>
              <strong>{option.name}</strong> <span class="muted">{option.help}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <Field label={t('Name')} name="name" problem={problem('name')}>
        <input
          {...describedBy('name', { problem: problem('name') })}
          required
          placeholder={t('Support Bot')}
        />
      </Field>
      <Field
        label={t('What it is told (system prompt)')}
        name="systemPrompt"
        problem={problem('systemPrompt')}
      >
        <textarea
          {...describedBy('systemPrompt', { problem: problem('systemPrompt') })}
          required
          rows={4}
          placeholder={t('You help customers of …')}
        />
      </Field>
      <Field label={t('Language')} name="language" problem={problem('language')}>
        <select {...describedBy('language', { problem: problem('language') })}>
          <option value="en">{t('English')}</option>
          <option value="ur">{t('Urdu')}</option>
          <option value="sd">{t('Sindhi')}</option>
        </select>
      </Field>
      {architecture !== 'realtime' ? (
        <Picker
          name="model"
          label={t('Language model')}
          options={modelsFor(catalogue, architecture)}
          value={choices.model}
          onChange={(model) => choose({ model })}
          problem={problem('model')}
        />
      ) : null}
      {architecture === 'pipeline' ? (
        <>
          <Picker
            name="stt"
            label={t('Speech to text')}
            options={catalogue.stt}
            value={choices.stt}
            onChange={(stt) => choose({ stt })}
            problem={problem('stt')}
          />
          <Picker
            name="tts"
            label={t('Text to speech')}
            options={catalogue.tts}
            value={choices.tts}
            onChange={(tts) => choose({ tts })}
            problem={problem('tts')}
          />
        </>
      ) : null}
      {architecture === 'realtime' ? (
        <Picker
          name="realtimeProvider"
          label={t('Realtime model')}
          options={catalogue.realtimeProviders}
          value={choices.realtimeProvider}
          onChange={(realtimeProvider) => choose({ realtimeProvider })}
          problem={problem('realtimeProvider')}
        />
      ) : null}
      {architecture !== 'text' ? (
        <Picker
          name="voiceId"
          label={t('Voice')}
          options={voicesOf(catalogue, voiceProvider)}
          value={choices.voiceId}
          onChange={(voiceId) => choose({ voiceId })}
          problem={problem('voiceId')}
        />
      ) : null}
      <ErrorLine error={error} />
      <button type="submit" class="primary" disabled={busy}>
        {t('Create agent')}
      </button>
    </form>
  )
}
