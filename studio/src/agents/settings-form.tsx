import type { AgentV1, Catalogue, StudioAgentUpdated } from '@parley/shared'
import { useEffect, useRef, useState } from 'preact/hooks'
import { session } from '../api.ts'
import { t } from '../i18n.tsx'
import { linkProps } from '../router.ts'
import { describedBy, ErrorLine, Field, PROVIDER_KEYS_PATH, problemOf } from '../ui.tsx'
import { mayChangeSettings } from './access.ts'
import { updateAgent } from './client.ts'
import { problemsOfSchema } from './functions/json-editor.tsx'
import { firstAvailable, modelsFor, Picker, voicesOf } from './pickers.tsx'
import { apiFieldOf, changesOf, type Draft, draftOf, rebaseDraft } from './settings-draft.ts'
import { HandoffFieldset, ToolsFieldset } from './settings-tools.tsx'
import { TransfersFieldset } from './settings-transfers.tsx'
import { VoicemailFieldset } from './settings-voicemail.tsx'
import { AnalysisSchemaField, WebhookFieldset } from './settings-webhook.tsx'

/** The studio form's answer when the organization lacks a key: what stood in, where to add keys. */
type Fallback = { missingKeys: string[]; replaced: string[]; redirectUrl: string }

const fallbackOf = (answer: StudioAgentUpdated, draft: Draft): Fallback => ({
  missingKeys: answer.missingKeys ?? [],
  replaced: [
    answer.finalModel && answer.finalModel !== draft.model ? t('model {id}', { id: answer.finalModel }) : '',
    answer.finalStt && answer.finalStt !== draft.stt ? t('speech to text {id}', { id: answer.finalStt }) : '',
  ].filter(Boolean),
  redirectUrl: answer.redirectUrl ?? PROVIDER_KEYS_PATH,
})

const MissingKeys = ({ fallback }: { fallback: Fallback }) => (
  <div class="notice" role="status">
    <p>
      {t(
        "Your organization has no key for {providers}, so the platform's choice was saved instead{replaced}.",
        {
          providers: fallback.missingKeys.join(t(' and ')),
          replaced: fallback.replaced.length > 0 ? ` (${fallback.replaced.join(', ')})` : '',
        },
      )}
    </p>
    <a {...linkProps(fallback.redirectUrl)}>{t('Add your provider keys')}</a>
  </div>
)

/**
 * Every setting the agent's architecture uses, saved through the studio form (only what changed).
 * The API's words about a setting are shown under it.
 */
export const SettingsForm = ({
  agent,
  catalogue,
  onSaved,
}: {
  agent: AgentV1
  catalogue: Catalogue
  onSaved: () => Promise<void>
}) => {
  const saved = draftOf(agent)
  const [draft, setDraft] = useState<Draft>(saved)
  const [error, setError] = useState<unknown>(null)
  const [outcome, setOutcome] = useState<'saved' | Fallback | null>(null)
  const [busy, setBusy] = useState(false)
  const role = session.value?.organization.role
  const architecture = agent.agentArchitecture
  // After a save, what the server stored (it may have replaced a choice) becomes the form's new
  // starting point; after a change made elsewhere on the page, what the owner typed is kept.
  const stored = useRef(saved)
  const isSaving = useRef(false)
  useEffect(() => {
    const next = draftOf(agent)
    setDraft((current) =>
      isSaving.current ? next : rebaseDraft(current, { from: stored.current, to: next }),
    )
    stored.current = next
    isSaving.current = false
  }, [agent.updatedAt])

  const set = (changes: Partial<Draft>) => {
    const next = { ...draft, ...changes }
    const voiceProvider = architecture === 'realtime' ? next.realtimeProvider : next.tts
    const voices = voicesOf(catalogue, voiceProvider)
    if (architecture !== 'text' && !voices.some((voice) => voice.id === next.voiceId))
      next.voiceId = firstAvailable(voices, catalogue.defaults.voiceId)
    setDraft(next)
    setOutcome(null)
  }
  const text = (field: keyof Draft) => ({
    ...describedBy(field, { problem: problem(field) }),
    value: String(draft[field]),
    onInput: (event: Event) => set({ [field]: (event.currentTarget as HTMLInputElement).value }),
  })
  const problem = (field: keyof Draft) => problemOf(error, apiFieldOf[field])

  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    const changes = changesOf(saved, draft)
    if (Object.keys(changes).length === 0) return setOutcome('saved')
    if (
      changes.analysisSchema !== undefined &&
      (await problemsOfSchema(draft.analysisSchema, 'analysisSchema', { optional: true })).length > 0
    )
      return document.getElementById('analysisSchema')?.focus()
    setError(null)
    setBusy(true)
    try {
      const answer = await updateAgent(agent.id, changes)
      isSaving.current = true
      await onSaved()
      setOutcome(answer.usedDefaults ? fallbackOf(answer, draft) : 'saved')
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  const fieldsetProps = { draft, set, problem }
  const mayEdit = mayChangeSettings(agent)
  const isVoice = architecture !== 'text'
  const voiceProvider = architecture === 'realtime' ? draft.realtimeProvider : draft.tts
  const models = modelsFor(catalogue, architecture)
  return (
    <form class="card" onSubmit={submit} aria-labelledby="settings-title">
      <h2 id="settings-title">{t('Settings')}</h2>
      {mayEdit ? null : (
        <p class="notice" id="settings-read-only">
          {t('Only owners and admins, or the member who made it, can change this agent.')}
        </p>
      )}
      <fieldset class="bare" disabled={!mayEdit}>
        <fieldset>
          <legend>{t('About')}</legend>
          <Field label={t('Name')} name="name" problem={problem('name')}>
            <input {...text('name')} required />
          </Field>
          <Field label={t('Description (for your team)')} name="description" problem={problem('description')}>
            <input {...text('description')} />
          </Field>
          <Field
            label={t('What it is told (system prompt)')}
            name="systemPrompt"
            problem={problem('systemPrompt')}
          >
            <textarea {...text('systemPrompt')} rows={6} required />
          </Field>
          <Field label={t('Language')} name="language" problem={problem('language')}>
            <select {...text('language')} onChange={(event) => set({ language: event.currentTarget.value })}>
              <option value="en">{t('English')}</option>
              <option value="ur">{t('Urdu')}</option>
              <option value="sd">{t('Sindhi')}</option>
            </select>
          </Field>
          <Field
            label={t('Who sees it')}
            name="mode"
            problem={problem('mode')}
            hint={t(
              'Private: you, admins and owners. Public: your whole team. Commercial: every organization.',
            )}
          >
            <select
              {...text('mode')}
              {...describedBy('mode', { problem: problem('mode'), hint: true })}
              onChange={(event) => set({ mode: event.currentTarget.value })}
            >
              <option value="private">{t('Private')}</option>
              <option value="public">{t('Public')}</option>
              {role === 'owner' || role === 'admin' || draft.mode === 'commercial' ? (
                <option value="commercial">{t('Commercial')}</option>
              ) : null}
            </select>
          </Field>
        </fieldset>
        <fieldset>
          <legend>{isVoice ? t('Model and voice') : t('Model')}</legend>
          {architecture !== 'realtime' ? (
            <>
              <Picker
                name="model"
                label={t('Language model')}
                options={models}
                value={draft.model}
                onChange={(model) => set({ model })}
                problem={problem('model')}
              />
              <Picker
                name="fallbackModel"
                label={t('Fallback model (when the first fails)')}
                options={models.filter((model) => model.id !== draft.model)}
                value={draft.fallbackModel}
                onChange={(fallbackModel) => set({ fallbackModel })}
                problem={problem('fallbackModel')}
                none="None"
              />
            </>
          ) : (
            <Picker
              name="realtimeProvider"
              label={t('Realtime model')}
              options={catalogue.realtimeProviders}
              value={draft.realtimeProvider}
              onChange={(realtimeProvider) => set({ realtimeProvider })}
              problem={problem('realtimeProvider')}
            />
          )}
          {architecture === 'pipeline' ? (
            <>
              <Picker
                name="stt"
                label={t('Speech to text')}
                options={catalogue.stt}
                value={draft.stt}
                onChange={(stt) => set({ stt })}
                problem={problem('stt')}
              />
              <Picker
                name="tts"
                label={t('Text to speech')}
                options={catalogue.tts}
                value={draft.tts}
                onChange={(tts) => set({ tts })}
                problem={problem('tts')}
              />
            </>
          ) : null}
          {isVoice ? (
            <Picker
              name="voiceId"
              label={t('Voice')}
              options={voicesOf(catalogue, voiceProvider)}
              value={draft.voiceId}
              onChange={(voiceId) => set({ voiceId })}
              problem={problem('voiceId')}
            />
          ) : null}
          <Field
            label={t('Temperature (0.1 steady – 1.0 inventive)')}
            name="temperature"
            problem={problem('temperature')}
          >
            <input {...text('temperature')} type="number" step="0.1" inputMode="decimal" />
          </Field>
        </fieldset>
        <fieldset>
          <legend>{t('Conversation')}</legend>
          <Field label={t('Who speaks first')} name="greetingType" problem={problem('greetingType')}>
            <select
              {...text('greetingType')}
              onChange={(event) => set({ greetingType: event.currentTarget.value })}
            >
              <option value="userFirst">{t('The visitor')}</option>
              <option value="agentFirst">{t('The agent, with its greeting')}</option>
            </select>
          </Field>
          {draft.greetingType === 'agentFirst' ? (
            <Field label={t('Greeting')} name="greetingMessage" problem={problem('greetingMessage')}>
              <input {...text('greetingMessage')} placeholder={t('Hi! How can I help?')} />
            </Field>
          ) : null}
          {isVoice ? (
            <>
              <Field
                label={t('Farewell (said when the call ends)')}
                name="lastMessage"
                problem={problem('lastMessage')}
              >
                <input {...text('lastMessage')} maxLength={100} />
              </Field>
              <Field
                label={t('Seconds of silence before it hangs up (10–60)')}
                name="inactivityTimeout"
                problem={problem('inactivityTimeout')}
              >
                <input {...text('inactivityTimeout')} type="number" step="1" inputMode="numeric" />
              </Field>
            </>
          ) : null}
        </fieldset>
        <fieldset>
          <legend>{t('After the conversation')}</legend>
          <label class="choice">
            <input
              type="checkbox"
              id="postCallAnalysis"
              checked={draft.postCallAnalysis}
              onChange={(event) => set({ postCallAnalysis: event.currentTarget.checked })}
            />
            <span>{t("Summarise it: a summary, the visitor's mood and the outcome")}</span>
          </label>
          <AnalysisSchemaField {...fieldsetProps} error={error} />
        </fieldset>
        <ToolsFieldset {...fieldsetProps} catalogue={catalogue} />
        <HandoffFieldset {...fieldsetProps} agent={agent} />
        {agent.agentArchitecture === 'text' ? null : <TransfersFieldset {...fieldsetProps} />}
        {agent.agentArchitecture === 'text' ? null : <VoicemailFieldset {...fieldsetProps} />}
        <WebhookFieldset {...fieldsetProps} agentId={agent.id} />
      </fieldset>
      <ErrorLine error={error} />
      {outcome === 'saved' ? (
        <p class="ok" role="status">
          {t('Saved.')}
        </p>
      ) : outcome ? (
        <MissingKeys fallback={outcome} />
      ) : null}
      {mayEdit ? (
        <button type="submit" class="primary" disabled={busy}>
          {t('Save settings')}
        </button>
      ) : null}
    </form>
  )
}
