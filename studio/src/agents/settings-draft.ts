import type { AgentV1, StudioUpdateAgent, VoicemailSetting } from '@parley/shared'

/** The API's default voicemail setting (an agent saved before the setting existed has it). */
export const defaultVoicemail: VoicemailSetting = {
  action: 'hang_up',
  message: null,
  onPhoneMenu: 'navigate',
}

/**
 * An agent's settings as the form holds them: text for every input (an analysis schema as the JSON
 * typed), a flag for each checkbox, the chosen ids of each group of checkboxes.
 */
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
  functionCallingEnabled: boolean
  enabledFunctions: string[]
  handoffAgentIds: string[]
  webhookEvents: string[]
  analysisSchema: string
  /** The transfer destinations as JSON text (a list of objects compares as its text). */
  transferDestinations: string
  /** The voicemail setting as JSON text (compares as its text). */
  voicemail: string
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
  functionCallingEnabled: agent.functionCallingEnabled,
  enabledFunctions: agent.enabledFunctions,
  handoffAgentIds: agent.handoffAgentIds,
  webhookEvents: agent.webhookEvents,
  analysisSchema: agent.analysisSchema ? JSON.stringify(agent.analysisSchema, null, 2) : '',
  transferDestinations: JSON.stringify(agent.transferDestinations ?? []),
  voicemail: JSON.stringify(agent.voicemail ?? defaultVoicemail),
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
  functionCallingEnabled: 'functionCallingEnabled',
  enabledFunctions: 'enabledFunctions',
  handoffAgentIds: 'handoffAgentIds',
  webhookEvents: 'webhookEvents',
  analysisSchema: 'analysisSchema',
  transferDestinations: 'transferDestinations',
  voicemail: 'voicemail',
}

const orNull = (text: string) => (text.trim() === '' ? null : text)
/** A schema typed as JSON; what is not JSON goes as it is, for the API to name the problem. */
const jsonOf = (text: string) => {
  if (text.trim() === '') return null
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}
/** A number typed in the form; what is not one goes as it is, for the API to name the problem. */
const numberOf = (text: string) => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text)

const valueFor = (field: keyof Draft, draft: Draft): unknown => {
  switch (field) {
    case 'language':
      return [draft.language]
    case 'temperature':
    case 'inactivityTimeout':
      return numberOf(draft[field])
    case 'analysisSchema':
      return jsonOf(draft.analysisSchema)
    case 'transferDestinations':
      return jsonOf(draft.transferDestinations) ?? []
    case 'voicemail':
      return jsonOf(draft.voicemail) ?? defaultVoicemail
    case 'name':
    case 'systemPrompt':
    case 'mode':
    case 'greetingType':
    case 'postCallAnalysis':
    case 'functionCallingEnabled':
    case 'enabledFunctions':
    case 'handoffAgentIds':
    case 'webhookEvents':
      return draft[field]
    default:
      return orNull(draft[field])
  }
}

/** Two values of a setting are the same; a group of checkboxes is a set (its order says nothing). */
const isSame = (one: Draft[keyof Draft], other: Draft[keyof Draft]) =>
  Array.isArray(one) && Array.isArray(other)
    ? one.length === other.length && one.every((id) => other.includes(id))
    : one === other

/**
 * Only what the owner changed, in the studio form's vocabulary: the form sends no unchanged field,
 * so a value set through v1 outside the studio form's bounds (temperature 0-2) is left alone.
 */
export const changesOf = (saved: Draft, draft: Draft): StudioUpdateAgent =>
  Object.fromEntries(
    (Object.keys(draft) as Array<keyof Draft>)
      .filter((field) => !isSame(draft[field], saved[field]))
      .map((field) => [apiFieldOf[field], valueFor(field, draft)]),
  ) as StudioUpdateAgent

/**
 * The form after the agent changed elsewhere (made live, a function enabled): what the owner has
 * not touched takes the new stored value, and what they typed but did not save is kept.
 */
export const rebaseDraft = (draft: Draft, { from, to }: { from: Draft; to: Draft }): Draft =>
  Object.fromEntries(
    (Object.keys(to) as Array<keyof Draft>).map((field) => [
      field,
      isSame(draft[field], from[field]) ? to[field] : draft[field],
    ]),
  ) as Draft
