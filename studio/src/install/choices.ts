/**
 * The customiser's choices, as the install page keeps them (the rest of the customiser comes as a
 * chunk of its own: see snippet.ts for what they become).
 */
export type WidgetChoices = {
  /** Bottom right (`end`) or bottom left (`start`), mirrored by an Urdu or Sindhi widget. */
  position: 'end' | 'start'
  theme: 'auto' | 'light' | 'dark'
  /** A CSS colour; '' keeps the widget's own. */
  accent: string
  /** '' follows the page's own language (`<html lang>`). */
  language: '' | 'en' | 'ur' | 'sd'
  suggestions: string[]
  /** A text agent's voice companion (a pipeline or realtime agent); '' for none. */
  voiceAgentId: string
  /** With voice: whether the panel opens on the microphone or on the text box. */
  opensWith: 'chat' | 'voice'
  voiceInput: 'toggle' | 'push-to-talk'
}

export const DEFAULT_CHOICES: WidgetChoices = {
  position: 'end',
  theme: 'auto',
  accent: '',
  language: '',
  suggestions: [],
  voiceAgentId: '',
  opensWith: 'chat',
  voiceInput: 'toggle',
}

/** The widget shows this many starter prompts at most (widget/src/element.tsx). */
export const MAX_SUGGESTIONS = 6
export const MAX_SUGGESTION_LENGTH = 100

export const isVoiceAgent = (agent: { agentArchitecture: string }) => agent.agentArchitecture !== 'text'
