import type { Agent, AgentV1, Catalogue, LanguageCode } from '@parley/shared'
import { languageNames } from '@parley/shared'
import type { AgentRow } from './store.ts'

/** The studio vocabulary: languages as {id, language} objects and the resolved VoiceOption. */
export const toAgent = (agent: AgentRow, catalogue: Catalogue): Agent => {
  const voice = catalogue.voices.find((v) => v.voiceId === agent.voiceId)
  const { webhookSecretBox: _secret, createdAt, updatedAt, languages, ...fields } = agent
  return {
    ...fields,
    languages: languages.map((code) => ({ id: code, language: languageNames[code as LanguageCode] ?? code })),
    VoiceOption: voice
      ? { voiceId: voice.voiceId, voiceName: voice.voiceName, provider: voice.provider }
      : null,
    createdAt: createdAt.toISOString(),
    updatedAt: updatedAt.toISOString(),
  }
}

/** The v1 get form: systemPrompt, a single language, tts. */
export const toAgentV1 = (agent: AgentRow): AgentV1 => ({
  id: agent.id,
  name: agent.name,
  description: agent.description,
  agentArchitecture: agent.agentArchitecture,
  model: agent.model,
  stt: agent.stt,
  tts: agent.tts,
  voiceId: agent.voiceId,
  realtimeProvider: agent.realtimeProvider,
  systemPrompt: agent.sysMsg,
  language: agent.languages[0] ?? 'en',
  mode: agent.mode,
  active: agent.active,
  temperature: agent.temperature,
  greetingType: agent.greetingType,
  greetingMessage: agent.greetingMessage,
  lastMessage: agent.lastMessage,
  inactivityTimeout: agent.inactivityTimeout,
  functionCallingEnabled: agent.functionCallingEnabled,
  enabledFunctions: agent.enabledFunctions,
  enabledCustomFunctions: agent.enabledCustomFunctions,
  webhookUrl: agent.webhookUrl,
  handoffAgentIds: agent.handoffAgentIds,
  knowledgeSourceIds: agent.knowledgeSourceIds,
  postCallAnalysis: agent.postCallAnalysis,
  fallbackModel: agent.fallbackModel,
  analysisModel: agent.analysisModel,
  fallbackStt: agent.fallbackStt,
  fallbackTts: agent.fallbackTts,
  webhookEvents: agent.webhookEvents,
  analysisSchema: agent.analysisSchema,
  transferDestinations: agent.transferDestinations,
  voicemail: agent.voicemail,
  createdBy: agent.userId,
  createdAt: agent.createdAt.toISOString(),
  updatedAt: agent.updatedAt.toISOString(),
})

export const toListItem = (agent: AgentRow) => ({
  id: agent.id,
  name: agent.name,
  mode: agent.mode,
  agentArchitecture: agent.agentArchitecture,
  active: agent.active,
  createdAt: agent.createdAt.toISOString(),
})
