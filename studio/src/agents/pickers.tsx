import type { AgentArchitecture, Catalogue } from '@parley/shared'
import { t } from '../i18n.tsx'
import { describedBy, Field } from '../ui.tsx'

/** The three kinds of agent, in the reader's language. */
export const architectureChoices = (): Array<{ id: AgentArchitecture; name: string; help: string }> => [
  { id: 'text', name: t('Text chat'), help: t('Answers typed messages in the widget') },
  {
    id: 'pipeline',
    name: t('Voice (pipeline)'),
    help: t('Speech to text, a language model, text to speech'),
  },
  { id: 'realtime', name: t('Voice (realtime)'), help: t('One speech-to-speech model') },
]

export const architectureName = (id: AgentArchitecture) =>
  architectureChoices().find((option) => option.id === id)?.name ?? id

type Option = {
  id: string
  name: string
  available?: boolean | undefined
  unavailableReason?: string | undefined
}

/**
 * An entry the organization's own provider key would make servable: it may be chosen (the studio
 * form then answers which keys are missing, and the provider keys page takes them).
 */
const needsOwnKey = (option: Option) =>
  option.available === false && /organization's [\w-]+ key/.test(option.unavailableReason ?? '')

/**
 * A select of catalogue entries, controlled; ones this deployment cannot serve are shown, disabled,
 * with why, unless the organization's own key would serve them. `none` adds an empty first choice
 * (for optional settings such as the fallback model).
 */
export const Picker = ({
  name,
  label,
  options,
  value,
  onChange,
  problem,
  none,
}: {
  name: string
  label: string
  options: Option[]
  value: string
  onChange: (value: string) => void
  problem?: string | undefined
  none?: string | undefined
}) => (
  <Field label={label} name={name} problem={problem}>
    <select
      {...describedBy(name, { problem })}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
    >
      {none !== undefined ? <option value="">{none}</option> : null}
      {options.map((option) => (
        <option
          value={option.id}
          disabled={option.available === false && !needsOwnKey(option)}
          title={option.unavailableReason}
        >
          {option.name}
          {needsOwnKey(option)
            ? ` ${t('(needs your key)')}`
            : option.available === false
              ? ` ${t('(not available here)')}`
              : ''}
        </option>
      ))}
    </select>
  </Field>
)

/** The models an architecture may use. */
export const modelsFor = (catalogue: Catalogue, architecture: AgentArchitecture) =>
  catalogue.models.filter((model) => model.architectures.includes(architecture))

/** The voices of a speech provider (a tts id, or a realtime provider), as picker options. */
export const voicesOf = (catalogue: Catalogue, provider: string | null) =>
  catalogue.voices
    .filter((voice) => voice.provider === provider)
    .map((voice) => ({ id: voice.voiceId, name: voice.voiceName }))

const isSelectable = (option: Option) => option.available !== false || needsOwnKey(option)

/**
 * The entry a form starts with: the preferred one (the catalogue's default) when it is servable,
 * else the first servable one, else the first that the organization's own key would serve.
 */
export const firstAvailable = (options: Option[], preferred?: string) =>
  options.find((option) => option.id === preferred && option.available !== false)?.id ??
  options.find((option) => option.available !== false)?.id ??
  options.find((option) => option.id === preferred && isSelectable(option))?.id ??
  options.find(isSelectable)?.id ??
  ''
