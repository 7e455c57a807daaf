import { readFileSync } from 'node:fs'
import { type Catalogue, ZCatalogue } from '@parley/shared'
import { type Config, ConfigError } from '../config.ts'
import type { AppContext } from '../context.ts'
import { providersWithKeys } from '../orgs/provider-keys.ts'
import { catalogueTarget, type EndpointKind, hasLlmProvider, routeEndpoint } from '../providers/registry.ts'

/**
 * Every entry names its provider (a registry id, see providers/registry.ts) and the provider's own
 * model or voice id, which is what the worker sends. Gladia is not offered: LiveKit Agents for
 * Node has no Gladia plugin, so a voice agent with it could never hear anyone.
 */
const builtIn: Catalogue = {
  models: [
    {
      id: 'offline',
      name: 'Offline stand-in (development only)',
      provider: 'parley',
      architectures: ['pipeline', 'text'],
    },
    {
      id: 'gpt-4o-mini',
      name: 'GPT-4o mini',
      provider: 'openai',
      providerModel: 'gpt-4o-mini',
      architectures: ['pipeline', 'text'],
    },
    {
      id: 'gpt-4o',
      name: 'GPT-4o',
      provider: 'openai',
      providerModel: 'gpt-4o',
      architectures: ['pipeline', 'text'],
    },
    {
      id: 'gpt-4.1-mini',
      name: 'GPT-4.1 mini',
      provider: 'openai',
      providerModel: 'gpt-4.1-mini',
      architectures: ['pipeline', 'text'],
    },
    {
      id: 'llama-3.3-70b-versatile',
      name: 'Llama 3.3 70B (Groq)',
      provider: 'groq',
      providerModel: 'llama-3.3-70b-versatile',
      architectures: ['pipeline', 'text'],
    },
    {
      id: 'gemini-2.0-flash',
      name: 'Gemini 2.0 Flash',
      provider: 'gemini',
      providerModel: 'gemini-2.0-flash',
      architectures: ['pipeline', 'text'],
    },
  ],
  stt: [
    { id: 'deepgram-nova-3', name: 'Deepgram Nova 3', provider: 'deepgram', providerModel: 'nova-3' },
    { id: 'whisper-1', name: 'OpenAI Whisper', provider: 'openai', providerModel: 'whisper-1' },
    {
      id: 'groq-whisper-large-v3-turbo',
      name: 'Whisper Large v3 Turbo (Groq)',
      provider: 'groq',
      providerModel: 'whisper-large-v3-turbo',
    },
  ],
  tts: [
    { id: 'cartesia-sonic-2', name: 'Cartesia Sonic 2', provider: 'cartesia', providerModel: 'sonic-2' },
    {
      id: 'elevenlabs-flash-v2.5',
      name: 'ElevenLabs Flash v2.5',
      provider: 'elevenlabs',
      providerModel: 'eleven_flash_v2_5',
    },
    { id: 'openai-tts-1', name: 'OpenAI TTS', provider: 'openai', providerModel: 'tts-1' },
  ],
  voices: [
    {
      voiceId: 'cartesia-katie',
      voiceName: 'Katie',
      provider: 'cartesia-sonic-2',
      providerVoiceId: 'f786b574-daa5-4673-aa0c-cbe3e8534c02',
    },
    {
      voiceId: 'cartesia-ronald',
      voiceName: 'Ronald',
      provider: 'cartesia-sonic-2',
      providerVoiceId: '5ee9feff-1265-424a-9d7f-8e4d431a12c7',
    },
    {
      voiceId: 'eleven-rachel',
      voiceName: 'Rachel',
      provider: 'elevenlabs-flash-v2.5',
      providerVoiceId: '21m00Tcm4TlvDq8ikWAM',
    },
    { voiceId: 'openai-alloy', voiceName: 'Alloy', provider: 'openai-tts-1', providerVoiceId: 'alloy' },
    { voiceId: 'openai-nova', voiceName: 'Nova', provider: 'openai-tts-1', providerVoiceId: 'nova' },
    { voiceId: 'alloy', voiceName: 'Alloy', provider: 'openai', providerVoiceId: 'alloy' },
    { voiceId: 'verse', voiceName: 'Verse', provider: 'openai', providerVoiceId: 'verse' },
    { voiceId: 'Puck', voiceName: 'Puck', provider: 'gemini', providerVoiceId: 'Puck' },
    { voiceId: 'Kore', voiceName: 'Kore', provider: 'gemini', providerVoiceId: 'Kore' },
  ],
  realtimeProviders: [
    { id: 'openai', name: 'OpenAI Realtime', providerModel: 'gpt-4o-realtime-preview' },
    { id: 'gemini', name: 'Gemini Live', providerModel: 'gemini-2.0-flash-live-001' },
  ],
  functions: [
    {
      id: 'end_call',
      name: 'End call',
      description: 'Ends the chat or hangs up, saying lastMessage first',
      available: true,
    },
    {
      id: 'web_search',
      name: 'Web search',
      description: 'Searches the web (needs a search provider)',
      available: false,
    },
  ],
  platformProviders: ['parley', 'openai', 'deepgram', 'cartesia'],
  defaults: {
    model: 'gpt-4o-mini',
    stt: 'deepgram-nova-3',
    tts: 'cartesia-sonic-2',
    voiceId: 'cartesia-katie',
  },
}

/** The models of PROVIDERS_FILE join the catalogue's; an id both name would be ambiguous. */
const withProviderModels = (catalogue: Catalogue, extra: Config['providerModels']): Catalogue => {
  const clash = extra.find((model) => catalogue.models.some((known) => known.id === model.id))
  if (clash)
    throw new ConfigError(
      `Invalid configuration: PROVIDERS_FILE model ${clash.id} is already a catalogue model`,
    )
  const added = extra.map(({ id, name, provider, providerModel, architectures }) => ({
    id,
    name,
    provider,
    providerModel,
    architectures,
  }))
  return { ...catalogue, models: [...catalogue.models, ...added] }
}

/**
 * The catalogue this deployment offers: CATALOGUE_FILE when set, the built-in one otherwise, and
 * the models of PROVIDERS_FILE. The `offline` stand-in exists only outside production.
 */
export const loadCatalogue = (
  config: Pick<Config, 'catalogueFile' | 'isProduction' | 'search' | 'providerModels'>,
): Catalogue => {
  const file = config.catalogueFile
    ? ZCatalogue.parse(JSON.parse(readFileSync(config.catalogueFile, 'utf8')))
    : builtIn
  // web_search works only with a search provider; the catalogue says whether this deployment has one.
  const source = withProviderModels(
    {
      ...file,
      functions: file.functions.map((fn) =>
        fn.id === 'web_search' ? { ...fn, available: config.search !== null } : fn,
      ),
    },
    config.providerModels,
  )
  return config.isProduction
    ? { ...source, models: source.models.filter((model) => model.id !== 'offline') }
    : source
}

type Availability = { available: boolean; unavailableReason?: string }

/**
 * The catalogue as one organization sees it on this deployment: each model, STT, TTS and realtime
 * entry says whether it can be served (the registry's routing, with the organization's own keys
 * where it has them) and why not; each model its price per million tokens.
 */
export const catalogueFor = async (ctx: AppContext, organizationId: string): Promise<Catalogue> => {
  const { catalogue, config } = ctx
  const ownKeys = await providersWithKeys(ctx, organizationId)
  const hasLlm = hasLlmProvider(config)
  const availabilityOf = (kind: EndpointKind, id: string): Availability => {
    if (kind === 'model' && id === 'offline') return { available: true }
    if (kind === 'model' && !hasLlm)
      return {
        available: false,
        unavailableReason:
          'no model provider is configured on this deployment (LLM_BASE_URL or <PROVIDER>_API_KEY): the offline stand-in answers instead',
      }
    const target = catalogueTarget(catalogue, { kind, id })
    if (!target) return { available: false, unavailableReason: `${id} is not in this deployment's catalogue` }
    const route = routeEndpoint(config, {
      kind,
      target,
      organizationKey: ownKeys.has(target.provider) ? 'present' : null,
    })
    return 'unusable' in route ? { available: false, unavailableReason: route.unusable } : { available: true }
  }
  const priceOf = (id: string) => config.llmPrices[id] ?? config.llmPrices.default
  return {
    ...catalogue,
    models: catalogue.models.map((model) => {
      const price = priceOf(model.id)
      return { ...model, ...availabilityOf('model', model.id), ...(price ? { price } : {}) }
    }),
    stt: catalogue.stt.map((entry) => ({ ...entry, ...availabilityOf('stt', entry.id) })),
    tts: catalogue.tts.map((entry) => ({ ...entry, ...availabilityOf('tts', entry.id) })),
    realtimeProviders: catalogue.realtimeProviders.map((entry) => ({
      ...entry,
      ...availabilityOf('realtime', entry.id),
    })),
  }
}
