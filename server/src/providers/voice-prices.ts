import type { Catalogue } from '@parley/shared'
import type { Config } from '../config.ts'
import { catalogueTarget, type EndpointKind } from './registry.ts'

/**
 * The prices of a minute of call by its parts (README "Voice pricing"), from the catalogue: what
 * calls/ bills and GET /v1/catalogue shows. A part served by the organization's own provider key
 * costs only the platform fee.
 */

/** The models a voice agent's minutes are made of (catalogue ids). */
export type VoiceAgent = {
  agentArchitecture: 'pipeline' | 'realtime' | 'text'
  model: string | null
  stt: string | null
  tts: string | null
  realtimeProvider: 'openai' | 'gemini' | null
}

/** What one part of a call served by the organization's own provider key costs a minute. */
export const PLATFORM_FEE_MICROS_PER_MINUTE = 1_000

/**
 * The tokens a pipeline agent's LLM reads and writes in a minute of conversation (about four
 * turns, each re-reading the prompt and the call so far): its token prices times these are the
 * LLM's price per minute.
 */
export const VOICE_LLM_TOKENS_PER_MINUTE = { input: 3_000, output: 250 } as const

/** An STT, TTS or realtime entry the catalogue gives no price: priced as the default agents' parts. */
const UNPRICED_MICROS_PER_MINUTE = { stt: 7_700, tts: 9_200, realtime: 35_000 } as const

type PriceSources = { catalogue: Catalogue; config: Pick<Config, 'llmPrices'> }
type VoicePart = { kind: EndpointKind; id: string }

/** The LLM's share of a pipeline minute, from its token prices. */
export const llmMicrosPerMinute = (config: Pick<Config, 'llmPrices'>, model: string) => {
  const price = config.llmPrices[model] ?? config.llmPrices.default
  if (!price) return 0
  // Tokens times USD per million tokens is micro-USD.
  return Math.ceil(
    VOICE_LLM_TOKENS_PER_MINUTE.input * price.inputUsdPerMillion +
      VOICE_LLM_TOKENS_PER_MINUTE.output * price.outputUsdPerMillion,
  )
}

/** One part's catalogue price per minute (with the platform's key), in micro-USD. */
export const partMicrosPerMinute = ({ catalogue, config }: PriceSources, part: VoicePart) => {
  if (part.kind === 'model') return llmMicrosPerMinute(config, part.id)
  const entries = part.kind === 'realtime' ? catalogue.realtimeProviders : catalogue[part.kind]
  const price = entries.find((entry) => entry.id === part.id)?.price
  return price ? Math.round(price.usdPerMinute * 1_000_000) : UNPRICED_MICROS_PER_MINUTE[part.kind]
}

/** The parts a voice agent's minutes are made of. */
export const voicePartsOf = (agent: VoiceAgent): VoicePart[] => {
  const parts: Array<[EndpointKind, string | null]> =
    agent.agentArchitecture === 'realtime'
      ? [['realtime', agent.realtimeProvider]]
      : [
          ['stt', agent.stt],
          ['model', agent.model],
          ['tts', agent.tts],
        ]
  return parts.flatMap(([kind, id]) => (id === null ? [] : [{ kind, id }]))
}

/**
 * Micro-USD a minute of a call of this agent costs the organization: each part at its catalogue
 * price, or the platform fee where the organization's own key for the part's provider serves it.
 */
export const voiceMicrosPerMinute = (
  sources: PriceSources,
  {
    agent,
    ownProviders,
  }: {
    agent: VoiceAgent
    ownProviders: ReadonlySet<string>
  },
) =>
  voicePartsOf(agent).reduce((sum, part) => {
    const provider = catalogueTarget(sources.catalogue, part)?.provider
    const isOwn = provider !== undefined && ownProviders.has(provider)
    return sum + (isOwn ? PLATFORM_FEE_MICROS_PER_MINUTE : partMicrosPerMinute(sources, part))
  }, 0)
