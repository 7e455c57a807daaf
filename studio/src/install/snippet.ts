/**
 * What the customiser's choices become: the widget's attributes (the live preview) and the
 * script tag an owner pastes, whose `data-*` the loader copies onto the widget it places
 * (widget/src/index.ts). A default is left out of both, so a tag says only what was chosen.
 */
import { isVoiceAgent, type WidgetChoices } from './choices.ts'

type Agent = { id: string; agentArchitecture: string }

/** A colour the widget can use as its accent: any CSS colour, and nothing that could leave the attribute. */
export const isColour = (value: string) =>
  /^[#\w\s(),.%/-]+$/.test(value) && (typeof CSS === 'undefined' || CSS.supports('color', value))

/** The starter prompts worth sending: trimmed, the empty ones left out. */
const promptsOf = (suggestions: string[]) => suggestions.map((text) => text.trim()).filter(Boolean)

/**
 * The widget's attributes for these choices, in the order the tag lists them. A voice agent's
 * widget opens voice first (it has no text chat of its own); a text agent may add a voice agent.
 * An accent that is not a colour is left out.
 */
export const widgetSettings = (agent: Agent, choices: WidgetChoices): Array<[string, string]> => {
  const voiceAgentId = isVoiceAgent(agent) ? agent.id : choices.voiceAgentId
  const isVoiceFirst = isVoiceAgent(agent) || (voiceAgentId !== '' && choices.opensWith === 'voice')
  const prompts = promptsOf(choices.suggestions)
  const accent = choices.accent.trim()
  const settings: Array<[string, string | false]> = [
    ['agent-id', agent.id],
    ['voice-agent-id', !isVoiceAgent(agent) && voiceAgentId],
    ['mode', isVoiceFirst && 'voice'],
    ['voice-input', voiceAgentId !== '' && choices.voiceInput === 'push-to-talk' && 'push-to-talk'],
    ['position', choices.position === 'start' && 'bottom-start'],
    ['theme', choices.theme !== 'auto' && choices.theme],
    ['accent', accent !== '' && isColour(accent) && accent],
    ['lang', choices.language],
    ['suggestions', prompts.length > 0 && JSON.stringify(prompts)],
  ]
  return settings.filter((setting): setting is [string, string] => Boolean(setting[1]))
}

/** An HTML attribute, quoted so a JSON value stays readable: single quotes around double ones. */
const attribute = (name: string, value: string) => {
  const escaped = value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  return value.includes('"')
    ? `${name}='${escaped.replace(/'/g, '&#39;')}'`
    : `${name}="${escaped.replace(/"/g, '&quot;')}"`
}

/** The exact tag to paste before </body>: one attribute a line, the key after the agent. */
export const snippetFor = ({
  origin,
  agent,
  key,
  choices,
}: {
  origin: string
  agent: Agent
  key: string
  choices: WidgetChoices
}) => {
  const [agentId, ...rest] = widgetSettings(agent, choices)
  const lines = [
    attribute('src', `${origin}/widget/parley.js`),
    ...(agentId ? [attribute(`data-${agentId[0]}`, agentId[1])] : []),
    attribute('data-key', key),
    ...rest.map(([name, value]) => attribute(`data-${name}`, value)),
  ]
  return `<script ${lines.join('\n  ')}\n  async></script>`
}

/**
 * How well the widget's white launcher icon and button words read on a hex accent (WCAG contrast
 * ratio); null for a colour written another way.
 */
export const contrastWithWhite = (value: string) => {
  const hex = value.trim().match(/^#([0-9a-f]{3}|[0-9a-f]{6})$/i)?.[1]
  if (!hex) return null
  const full = hex.length === 3 ? [...hex].map((digit) => digit + digit).join('') : hex
  const channel = (at: number) => {
    const value = Number.parseInt(full.slice(at, at + 2), 16) / 255
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4
  }
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4)
  return 1.05 / (luminance + 0.05)
}
