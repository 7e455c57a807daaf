import {
  type AgentArchitecture,
  type Catalogue,
  DEFAULT_TEMPERATURE,
  defaultVoicemailSetting,
} from '@parley/shared'
import type { Config } from '../config.ts'
import { AppError } from '../http/app-error.ts'
import {
  catalogueTarget,
  type EndpointKind,
  hasLlmProvider,
  type ProviderRegistry,
  routeEndpoint,
} from '../providers/registry.ts'
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
  | 'fallbackModel'
  | 'analysisModel'
  | 'fallbackStt'
  | 'fallbackTts'
  | 'transferDestinations'
  | 'voicemail'
>

/** Fields an architecture does not use are stored as null, whatever was sent. */
export const clearUnusedFields = <T extends Settings>(agent: T): T => {
  switch (agent.agentArchitecture) {
    case 'pipeline':
      return { ...agent, realtimeProvider: null, analysisModel: null }
    case 'realtime':
      // fallbackModel, fallbackStt and fallbackTts stay: together they are the pipeline a
      // realtime call continues on when its model fails.
      return { ...agent, model: null, stt: null, tts: null }
    default:
      // A chat has no phone line: transfers to a person are a voice agent's.
      return {
        ...agent,
        analysisModel: null,
        stt: null,
        tts: null,
        fallbackStt: null,
        fallbackTts: null,
        voiceId: null,
        realtimeProvider: null,
        transferDestinations: [],
        voicemail: defaultVoicemailSetting,
      }
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

/**
 * A realtime agent's pipeline fallback is whole or absent: fallbackModel, fallbackStt and
 * fallbackTts together (the worker cannot continue a call on a part of a pipeline).
 */
const checkPipelineFallback = (agent: Settings) => {
  const parts = (['fallbackModel', 'fallbackStt', 'fallbackTts'] as const).filter(
    (field) => agent[field] !== null && agent[field] !== undefined,
  )
  if (parts.length > 0 && parts.length < 3)
    throw AppError.badRequest(
      'A realtime agent’s pipeline fallback needs fallbackModel, fallbackStt and fallbackTts together',
    )
}

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
  if (agent.agentArchitecture === 'realtime') checkPipelineFallback(agent)
  // A realtime agent's fallback model runs in a pipeline.
  const fallbackModels =
    agent.agentArchitecture === 'realtime'
      ? catalogue.models.filter((model) => model.architectures.includes('pipeline'))
      : models
  if (agent.fallbackModel !== null && agent.fallbackModel !== undefined) {
    if (!fallbackModels.some((model) => model.id === agent.fallbackModel))
      throw oneOf(
        'fallbackModel',
        fallbackModels.map((m) => m.id),
      )
    if (agent.fallbackModel === agent.model) throw AppError.badRequest('fallbackModel must differ from model')
  }
  // Analysis writes text: any catalogue model a text agent may use (the stand-in writes nothing).
  const textModels = catalogue.models
    .filter((model) => model.architectures.includes('text') && model.provider !== 'parley')
    .map((model) => model.id)
  if (agent.analysisModel !== null && agent.analysisModel !== undefined)
    if (!textModels.includes(agent.analysisModel)) throw oneOf('analysisModel', textModels)
  for (const [field, kind] of [
    ['fallbackStt', 'stt'],
    ['fallbackTts', 'tts'],
  ] as const) {
    const value = agent[field]
    if (value === null || value === undefined) continue
    const entries = catalogue[kind].map((entry) => entry.id)
    if (!entries.includes(value)) throw oneOf(field, entries)
    if (value === agent[kind]) throw AppError.badRequest(`${field} must differ from ${kind}`)
  }
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

/**
 * OpenAI's Realtime API has no temperature (its session takes none, so the plugin sends none): a
 * temperature set for an OpenAI Realtime agent could never reach the model, and is refused rather
 * than stored as if it did. The value the agent already has (or the default at creation) is
 * accepted, so a fetched agent can be sent back as it came. Gemini Live and every pipeline
 * model take it.
 */
export const checkRealtimeTemperature = (
  agent: Pick<AgentFields, 'agentArchitecture' | 'realtimeProvider' | 'temperature'>,
  previous: number = DEFAULT_TEMPERATURE,
) => {
  if (agent.agentArchitecture !== 'realtime' || agent.realtimeProvider !== 'openai') return
  if (agent.temperature === previous) return
  throw AppError.badRequest(
    'temperature: OpenAI Realtime takes no temperature (its API has no such setting); leave it out, or use Gemini Live or a pipeline agent',
  )
}

type Needs = {
  /** Providers this deployment serves only with the organization's own key. */
  keysNeeded: string[]
  /** Entries no key can make usable here (a provider the registry does not know). */
  unsupported: string[]
}

/**
 * What the agent's catalogue choices need beyond what the platform serves itself, by the provider
 * registry's own routing (providers/registry.ts), so an agent is refused at save rather than at
 * its first chat or call. The LLM is checked everywhere; STT, TTS and realtime providers are
 * checked in production (in development a voice deployment is often only partly configured, and
 * the call's setup says what is missing). With no LLM configured at all (development), text
 * replies come from the offline stand-in and the catalogue's platformProviders say which
 * providers would need the organization's key.
 */
export const providerNeeds = (
  agent: Pick<Settings, 'model' | 'stt' | 'tts' | 'realtimeProvider'> &
    Partial<Pick<Settings, 'fallbackModel' | 'analysisModel' | 'fallbackStt' | 'fallbackTts'>>,
  { catalogue, config }: { catalogue: Catalogue; config: ProviderRegistry & Pick<Config, 'isProduction'> },
): Needs => {
  const requests: Array<[EndpointKind, string | null]> = [
    ['model', agent.model],
    ['model', agent.fallbackModel ?? null],
    ['model', agent.analysisModel ?? null],
    ['stt', agent.stt],
    ['stt', agent.fallbackStt ?? null],
    ['tts', agent.tts],
    ['tts', agent.fallbackTts ?? null],
    ['realtime', agent.realtimeProvider],
  ]
  const isBare = !config.isProduction && !hasLlmProvider(config)
  const keysNeeded = new Set<string>()
  const unsupported: string[] = []
  for (const [kind, id] of requests) {
    if (id === null) continue
    const target = catalogueTarget(catalogue, { kind, id })
    if (!target || target.provider === 'parley') continue
    const isKnown = Object.hasOwn(config.providers, target.provider)
    if (!isKnown && kind !== 'model') {
      unsupported.push(`${kind} ${id}: its provider ${target.provider} is not supported on this deployment`)
      continue
    }
    if (isBare) {
      if ((kind === 'model' || kind === 'stt') && !catalogue.platformProviders.includes(target.provider))
        keysNeeded.add(target.provider)
      continue
    }
    if (kind !== 'model' && !config.isProduction) continue
    const route = routeEndpoint(config, { kind, target, organizationKey: null })
    if (!('unusable' in route)) continue
    if (isKnown) keysNeeded.add(target.provider)
    else unsupported.push(`${kind} ${id}: ${route.unusable}`)
  }
  return { keysNeeded: [...keysNeeded].sort(), unsupported }
}

export const defaultVoiceFor = (
  catalogue: Catalogue,
  architecture: AgentArchitecture,
  provider: string | null,
) =>
  architecture === 'text'
    ? null
    : (catalogue.voices.find((voice) => voice.provider === provider)?.voiceId ?? null)
