import type { AgentV1, StudioUpdateAgent } from '@parley/shared'

/** An agent's settings as the form holds them: text for every input, a flag for the checkbox. */
export type Draft = {
  name: string
  description: string
  systemPrompt: string
  language: string
  mode: string
  temperature: string
  greetingType: string
  greetingMessage: string
  lastMessage: string
  inactivityTimeout: string
  model: string
  fallbackModel: string
  stt: string
  tts: string
  voiceId: string
  realtimeProvider: string
  webhookUrl: string
  postCallAnalysis: boolean
}

export const draftOf = (agent: AgentV1): Draft => ({
  name: agent.name,
  description: agent.description ?? '',
  systemPrompt: agent.systemPrompt ?? '',
  language: agent.language,
  mode: agent.mode,
  temperature: String(agent.temperature),
  greetingType: agent.greetingType,
  greetingMessage: agent.greetingMessage ?? '',
  lastMessage: agent.lastMessage ?? '',
  inactivityTimeout: String(agent.inactivityTimeout),
  model: agent.model ?? '',
  fallbackModel: agent.fallbackModel ?? '',
  stt: agent.stt ?? '',
  tts: agent.tts ?? '',
  voiceId: agent.voiceId ?? '',
  realtimeProvider: agent.realtimeProvider ?? '',
  webhookUrl: agent.webhookUrl ?? '',
  postCallAnalysis: agent.postCallAnalysis,
})

/** The studio form's name of each setting (the v1 read form says systemPrompt and language). */
export const apiFieldOf: Record<keyof Draft, string> = {
  name: 'name',
  description: 'description',
  systemPrompt: 'sysMsg',
  language: 'languages',
  mode: 'mode',
  temperature: 'temperature',
  greetingType: 'greetingType',
  greetingMessage: 'greetingMessage',
  lastMessage: 'lastMessage',
  inactivityTimeout: 'inactivityTimeout',
  model: 'model',
  fallbackModel: 'fallbackModel',
  stt: 'stt',
  tts: 'tts',
  voiceId: 'voiceId',
  realtimeProvider: 'realtimeProvider',
  webhookUrl: 'webhookUrl',
  postCallAnalysis: 'postCallAnalysis',
}

const orNull = (text: string) => (text.trim() === '' ? null : text)
/** A number typed in the form; what is not one goes as it is, for the API to name the problem. */
const numberOf = (text: string) => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text)

const valueFor = (field: keyof Draft, draft: Draft): unknown => {
  switch (field) {
    case 'language':
      return [draft.language]
    case 'temperature':
    case 'inactivityTimeout':
      return numberOf(draft[field])
    case 'name':
    case 'systemPrompt':
    case 'mode':
    case 'greetingType':
    case 'postCallAnalysis':
      return draft[field]
    default:
      return orNull(draft[field])
  }
}

/**
 * Only what the owner changed, in the studio form's vocabulary: the form sends no unchanged field,
 * so a value set through v1 outside the studio form's bounds (temperature 0-2) is left alone.
 */
export const changesOf = (saved: Draft, draft: Draft): StudioUpdateAgent =>
  Object.fromEntries(
    (Object.keys(draft) as Array<keyof Draft>)
      .filter((field) => draft[field] !== saved[field])
      .map((field) => [apiFieldOf[field], valueFor(field, draft)]),
  ) as StudioUpdateAgent
