import { LANGUAGES, t } from '../i18n.tsx'
import { describedBy, Field } from '../ui.tsx'
import { EmbeddedWidget } from '../widget-embed.tsx'
import { isVoiceAgent, MAX_SUGGESTION_LENGTH, MAX_SUGGESTIONS, type WidgetChoices } from './choices.ts'
import { contrastWithWhite, isColour, widgetSettings } from './snippet.ts'

export type AgentRow = { id: string; name: string; agentArchitecture: string }

/** What is wrong with the choices, by field: the tag cannot be copied until none is. */
export const problemsOf = (choices: WidgetChoices) => {
  const accent = choices.accent.trim()
  return {
    accent:
      accent && !isColour(accent)
        ? t('Not a colour: write one such as #1d4ed8, rgb(29 78 216) or teal.')
        : undefined,
    suggestions: choices.suggestions.map((text) =>
      text.trim() ? undefined : t('Write the prompt, or remove it.'),
    ),
  }
}

export const hasProblems = (choices: WidgetChoices) => {
  const problems = problemsOf(choices)
  return Boolean(problems.accent) || problems.suggestions.some(Boolean)
}

/** The colour picker shows a hex accent as it is, any other as the widget's own blue. */
const pickerValue = (accent: string) => {
  const hex = accent.trim().match(/^#([0-9a-f]{3}|[0-9a-f]{6})$/i)?.[1]
  if (!hex) return '#1d4ed8'
  return `#${hex.length === 3 ? [...hex].map((digit) => digit + digit).join('') : hex}`.toLowerCase()
}

type Props = {
  agent: AgentRow
  voiceAgents: AgentRow[]
  choices: WidgetChoices
  onChange: (choices: WidgetChoices) => void
}

/**
 * The customiser: how the widget looks, speaks and opens, with the real widget beside it showing
 * every choice as it is made (a floating widget kept inside the preview's frame).
 */
export const Customiser = ({ agent, voiceAgents, choices, onChange }: Props) => {
  const set = (changes: Partial<WidgetChoices>) => onChange({ ...choices, ...changes })
  const problems = problemsOf(choices)
  const contrast = problems.accent ? null : contrastWithWhite(choices.accent)
  const accentHint = contrast !== null && contrast < 4.5
  const hasVoice = isVoiceAgent(agent) || choices.voiceAgentId !== ''
  const setSuggestion = (at: number, text: string) =>
    set({ suggestions: choices.suggestions.map((old, index) => (index === at ? text : old)) })
  const select = (name: keyof WidgetChoices, options: Array<[string, string]>, { hint = false } = {}) => (
    <select
      {...describedBy(name, { hint })}
      value={String(choices[name])}
      onChange={(event) => set({ [name]: event.currentTarget.value })}
    >
      {options.map(([value, label]) => (
        <option value={value}>{label}</option>
      ))}
    </select>
  )

  return (
    <div class="customiser">
      <fieldset>
        <legend>{t('How it looks')}</legend>
        <Field label={t('Position')} name="position" hint={t('Urdu and Sindhi widgets mirror it.')}>
          {select(
            'position',
            [
              ['end', t('Bottom right')],
              ['start', t('Bottom left')],
            ],
            { hint: true },
          )}
        </Field>
        <Field label={t('Theme')} name="theme">
          {select('theme', [
            ['auto', t("As the visitor's system")],
            ['light', t('Light')],
            ['dark', t('Dark')],
          ])}
        </Field>
        <Field
          label={t('Accent colour')}
          name="accent"
          hint={t("Empty keeps the widget's blue.")}
          problem={problems.accent}
        >
          <div class="row">
            <input
              {...describedBy('accent', { problem: problems.accent, hint: true })}
              value={choices.accent}
              placeholder="#1d4ed8"
              dir="ltr"
              spellcheck={false}
              onInput={(event) => set({ accent: event.currentTarget.value })}
            />
            <input
              type="color"
              aria-label={t('Pick the accent colour')}
              value={pickerValue(choices.accent)}
              onInput={(event) => set({ accent: event.currentTarget.value })}
            />
          </div>
        </Field>
        {accentHint ? (
          <p class="notice" id="accent-contrast">
            {t('White words on this colour are hard to read (contrast {ratio}:1; aim for 4.5:1 or more).', {
              ratio: (contrast ?? 0).toFixed(1),
            })}
          </p>
        ) : null}
        <Field label={t('Language')} name="widgetLanguage">
          <select
            id="widgetLanguage"
            value={choices.language}
            onChange={(event) => set({ language: event.currentTarget.value as WidgetChoices['language'] })}
          >
            <option value="">{t("The page's own language")}</option>
            {LANGUAGES.map((option) => (
              <option value={option.id} lang={option.id}>
                {option.name}
              </option>
            ))}
          </select>
        </Field>
      </fieldset>

      <fieldset>
        <legend>{t('Starter prompts')}</legend>
        <p class="muted">{t('Buttons a visitor can press to start, up to six.')}</p>
        {choices.suggestions.map((text, at) => (
          <div class="row suggestion-row">
            <Field
              label={t('Starter prompt {number}', { number: at + 1 })}
              name={`suggestion-${at}`}
              problem={problems.suggestions[at]}
            >
              <input
                {...describedBy(`suggestion-${at}`, { problem: problems.suggestions[at] })}
                value={text}
                dir="auto"
                maxLength={MAX_SUGGESTION_LENGTH}
                onInput={(event) => setSuggestion(at, event.currentTarget.value)}
              />
            </Field>
            <button
              type="button"
              class="small"
              aria-label={t('Remove starter prompt {number}', { number: at + 1 })}
              onClick={() => set({ suggestions: choices.suggestions.filter((_, index) => index !== at) })}
            >
              {t('Remove')}
            </button>
          </div>
        ))}
        <div>
          <button
            type="button"
            disabled={choices.suggestions.length >= MAX_SUGGESTIONS}
            onClick={() => set({ suggestions: [...choices.suggestions, ''] })}
          >
            {t('Add a starter prompt')}
          </button>
        </div>
      </fieldset>

      <fieldset>
        <legend>{t('Voice')}</legend>
        {isVoiceAgent(agent) ? (
          <p class="muted">{t('A voice agent: the widget opens on the microphone.')}</p>
        ) : (
          <Field label={t('Voice agent for calls')} name="voiceAgentId">
            {select('voiceAgentId', [
              ['', t('None: typing only')],
              ...voiceAgents.map((voice): [string, string] => [voice.id, voice.name]),
            ])}
          </Field>
        )}
        {hasVoice && !isVoiceAgent(agent) ? (
          <Field label={t('Opens with')} name="opensWith">
            {select('opensWith', [
              ['chat', t('The text box')],
              ['voice', t('The microphone')],
            ])}
          </Field>
        ) : null}
        {hasVoice ? (
          <Field label={t('Microphone')} name="voiceInput">
            {select('voiceInput', [
              ['toggle', t('Press once to talk, again to stop')],
              ['push-to-talk', t('Hold to talk')],
            ])}
          </Field>
        ) : null}
      </fieldset>

      <section class="preview" aria-labelledby="preview-title">
        <h2 id="preview-title">{t('Preview')}</h2>
        <p class="muted">
          {t(
            'The real widget with these choices. A conversation in it is a real one, with the agent as saved.',
          )}
        </p>
        <div class="preview-stage">
          <EmbeddedWidget
            attributes={{
              ...Object.fromEntries(
                [
                  'voice-agent-id',
                  'mode',
                  'voice-input',
                  'position',
                  'theme',
                  'accent',
                  'lang',
                  'suggestions',
                ].map((name) => [name, null]),
              ),
              ...Object.fromEntries(widgetSettings(agent, choices)),
              // A conversation of its own, apart from the agent page's Try it panel: the widget
              // keeps one per API address and agent, and this address only adds a slash.
              'base-url': `${location.origin}/`,
            }}
          />
        </div>
      </section>
    </div>
  )
}
