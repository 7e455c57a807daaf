import type { AgentArchitecture, Catalogue } from '@parley/shared'
import { AppError } from '../http/app-error.ts'
import type { AgentFields } from './store.ts'

type Settings = Pick<
  AgentFields,
  | 'agentArchitecture'
  | 'model'
  | 'stt'
  | 'tts'
  | 'voiceId'
  | 'realtimeProvider'
  | 'greetingType'
  | 'enabledFunctions'
>

/** Fields an architecture does not use are stored as null, whatever was sent. */
export const clearUnusedFields = <T extends Settings>(agent: T): T => {
  switch (agent.agentArchitecture) {
    case 'pipeline':
      return { ...agent, realtimeProvider: null }
    case 'realtime':
      return { ...agent, model: null, stt: null, tts: null }
    default:
      return { ...agent, stt: null, tts: null, voiceId: null, realtimeProvider: null }
  }
}

const requiredFields = (agent: Settings): (keyof Settings)[] => {
  switch (agent.agentArchitecture) {
    case 'pipeline':
      return ['voiceId', 'model', 'stt', 'tts']
    case 'realtime':
      return agent.greetingType === 'agentFirst' ? ['realtimeProvider', 'voiceId'] : ['realtimeProvider']
    default:
      return ['model']
  }
}

const oneOf = (field: string, allowed: string[]) =>
  AppError.badRequest(
    `${field} must be one of: ${allowed.length > 0 ? allowed.join(', ') : '(none available)'}`,
  )

/** The architecture rules of the spec, then every value checked against the catalogue. */
export const checkAgentSettings = (agent: Settings, catalogue: Catalogue) => {
  const missing = requiredFields(agent).filter((field) => agent[field] === null || agent[field] === undefined)
  if (missing.length > 0) {
    const label = agent.agentArchitecture[0]?.toUpperCase() + agent.agentArchitecture.slice(1)
    throw AppError.badRequest(`${label} agents require ${missing.join(', ')}`)
  }
  const models = catalogue.models.filter((model) => model.architectures.includes(agent.agentArchitecture))
  if (agent.model !== null && !models.some((model) => model.id === agent.model))
    throw oneOf(
      'model',
      models.map((m) => m.id),
    )
  if (agent.stt !== null && !catalogue.stt.some((stt) => stt.id === agent.stt))
    throw oneOf(
      'stt',
      catalogue.stt.map((s) => s.id),
    )
  if (agent.tts !== null && !catalogue.tts.some((tts) => tts.id === agent.tts))
    throw oneOf(
      'tts',
      catalogue.tts.map((t) => t.id),
    )
  const voiceProvider = agent.agentArchitecture === 'realtime' ? agent.realtimeProvider : agent.tts
  const voices = catalogue.voices.filter((voice) => voice.provider === voiceProvider)
  if (agent.voiceId !== null && !voices.some((voice) => voice.voiceId === agent.voiceId)) {
    throw oneOf(
      `voiceId for ${voiceProvider}`,
      voices.map((v) => v.voiceId),
    )
  }
  const functions = catalogue.functions.map((fn) => fn.id)
  const unknown = agent.enabledFunctions.find((id) => !functions.includes(id))
  if (unknown !== undefined) throw oneOf('enabledFunctions', functions)
}

/** The providers whose keys a model and STT choice needs beyond the platform's own. */
export const providersNeeded = (agent: Pick<Settings, 'model' | 'stt'>, catalogue: Catalogue) => {
  const providers = [
    catalogue.models.find((model) => model.id === agent.model)?.provider,
    catalogue.stt.find((stt) => stt.id === agent.stt)?.provider,
  ]
  return [
    ...new Set(
      providers.filter((p): p is string => p !== undefined && !catalogue.platformProviders.includes(p)),
    ),
  ]
}

export const defaultVoiceFor = (
  catalogue: Catalogue,
  architecture: AgentArchitecture,
  provider: string | null,
) =>
  architecture === 'text'
    ? null
    : (catalogue.voices.find((voice) => voice.provider === provider)?.voiceId ?? null)
