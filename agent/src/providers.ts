import { llm, stt, tokenize, tts, type VAD } from '@livekit/agents'
import type { TTSVoices as OpenAiVoices } from '@livekit/agents-plugin-openai'
import type { CallSetup, ResolvedEndpoint } from '@parley/shared'

type Endpoint = ResolvedEndpoint
type SttEndpoint = NonNullable<CallSetup['stt']>
type TtsEndpoint = NonNullable<CallSetup['tts']>
type RealtimeEndpoint = NonNullable<CallSetup['realtime']>
type Options = { temperature: number; language: string }

/**
 * The plugins, each imported only when a call's setup names its protocol (`loadProviders`): a job
 * process carries the one or two its call speaks, not all five (Google's pulls in its SDK). Loaded
 * once per process; the builders below read them synchronously, so a session's switch to its
 * pipeline fallback, which happens inside an event listener, builds its models on the spot.
 */
const importers = {
  openai: () => import('@livekit/agents-plugin-openai'),
  deepgram: () => import('@livekit/agents-plugin-deepgram'),
  elevenlabs: () => import('@livekit/agents-plugin-elevenlabs'),
  cartesia: () => import('@livekit/agents-plugin-cartesia'),
  google: () => import('@livekit/agents-plugin-google'),
} satisfies Record<Endpoint['api'], () => Promise<unknown>>

type Plugins = { [Api in keyof typeof importers]: Awaited<ReturnType<(typeof importers)[Api]>> }
const loaded: Partial<Plugins> = {}

const plugin = <Api extends keyof Plugins>(api: Api): Plugins[Api] => {
  const module = loaded[api]
  if (!module) throw new Error(`the ${api} plugin is not loaded: loadProviders() comes first`)
  return module
}

type Named = { api: Endpoint['api'] } | null | undefined

/** Imports the plugins these endpoints speak (all of them when none are given), once per process. */
export const loadProviders = async (endpoints?: readonly Named[]) => {
  const apis = endpoints
    ? endpoints.flatMap((endpoint) => (endpoint ? [endpoint.api] : []))
    : (Object.keys(importers) as (keyof Plugins)[])
  await Promise.all(
    [...new Set(apis)].map(async (api) => {
      if (loaded[api]) return
      const module = await importers[api]()
      ;(loaded as Record<string, unknown>)[api] = module
    }),
  )
}

/** Every plugin a call setup may use: its models, their fallbacks, and answering-machine detection's. */
export const loadProvidersFor = (setup: CallSetup) =>
  loadProviders([
    setup.llm,
    setup.stt,
    setup.tts,
    setup.realtime,
    setup.fallbackLlm,
    setup.fallbackStt,
    setup.fallbackTts,
    setup.amd?.llm,
    setup.amd?.stt,
  ])

type Builders = {
  llm?: (endpoint: Endpoint, options: Options) => llm.LLM
  stt?: (endpoint: SttEndpoint) => stt.STT
  tts?: (endpoint: TtsEndpoint, options: Options) => tts.TTS
  realtime?: (endpoint: RealtimeEndpoint, options: Options) => llm.RealtimeModel
}

/** Deepgram's plugin adds `/v1/listen` and `/v1/speak` itself, to the host its SDK calls the root. */
const deepgramRoot = (baseUrl: string) => baseUrl.replace(/\/v1\/?$/, '')

/**
 * The one table from a resolved endpoint's wire protocol (`api`) to the LiveKit plugin that speaks
 * it. Every plugin gets the endpoint's key and base URL explicitly: plugins fall back to their own
 * environment variables (OPENAI_API_KEY, …) and default hosts, and a call must use the key the
 * server chose for its organization and the URL the deployment configured. `baseUrl` is the
 * provider's API root as the server's registry names it (`https://api.openai.com/v1`, any
 * OpenAI-compatible `…/v1`, `https://api.deepgram.com/v1`, `https://api.elevenlabs.io/v1`,
 * `https://api.cartesia.ai`, `https://generativelanguage.googleapis.com`); the plugins derive
 * their WebSocket URLs from it.
 */
const providers: Record<Endpoint['api'], Builders> = {
  openai: {
    llm: (endpoint, { temperature }) =>
      new (plugin('openai').LLM)({
        model: endpoint.model,
        baseURL: endpoint.baseUrl,
        apiKey: endpoint.apiKey,
        temperature,
      }),
    // The transcriptions endpoint (whisper-1 and its OpenAI-compatible peers, e.g. Groq's): the
    // plugin's default is OpenAI's realtime WebSocket, which other providers do not serve.
    stt: (endpoint) =>
      new (plugin('openai').STT)({
        useRealtime: false,
        model: endpoint.model,
        baseURL: endpoint.baseUrl,
        apiKey: endpoint.apiKey,
        language: endpoint.language,
      }),
    tts: (endpoint) =>
      new (plugin('openai').TTS)({
        model: endpoint.model,
        baseURL: endpoint.baseUrl,
        apiKey: endpoint.apiKey,
        voice: endpoint.voice as OpenAiVoices,
      }),
    // OpenAI's Realtime session has no temperature (the plugin sends none): the server refuses
    // one for these agents, so none is passed here as if it reached the model.
    realtime: (endpoint) =>
      new (plugin('openai').realtime.RealtimeModel)({
        model: endpoint.model,
        baseURL: endpoint.baseUrl,
        apiKey: endpoint.apiKey,
        ...(endpoint.voice ? { voice: endpoint.voice } : {}),
      }),
  },
  deepgram: {
    stt: (endpoint) =>
      new (plugin('deepgram').STT)({
        model: endpoint.model,
        baseUrl: deepgramRoot(endpoint.baseUrl),
        apiKey: endpoint.apiKey,
        language: endpoint.language,
      }),
    // Deepgram's voices are models (`aura-2-thalia-en`).
    tts: (endpoint) =>
      new (plugin('deepgram').TTS)({
        model: endpoint.voice || endpoint.model,
        baseUrl: deepgramRoot(endpoint.baseUrl),
        apiKey: endpoint.apiKey,
      }),
  },
  elevenlabs: {
    stt: (endpoint) =>
      new (plugin('elevenlabs').STT)({
        model: endpoint.model,
        baseURL: endpoint.baseUrl,
        apiKey: endpoint.apiKey,
        languageCode: endpoint.language,
      }),
    tts: (endpoint, { language }) =>
      new (plugin('elevenlabs').TTS)({
        model: endpoint.model,
        voiceId: endpoint.voice,
        baseURL: endpoint.baseUrl,
        apiKey: endpoint.apiKey,
        language,
      }),
  },
  cartesia: {
    stt: (endpoint) =>
      new (plugin('cartesia').STT)({
        model: endpoint.model,
        baseUrl: endpoint.baseUrl,
        apiKey: endpoint.apiKey,
        language: endpoint.language,
      }),
    tts: (endpoint, { language }) =>
      new (plugin('cartesia').TTS)({
        model: endpoint.model,
        voice: endpoint.voice,
        baseUrl: endpoint.baseUrl,
        apiKey: endpoint.apiKey,
        language,
      }),
  },
  google: {
    llm: (endpoint, { temperature }) =>
      new (plugin('google').LLM)({
        model: endpoint.model,
        apiKey: endpoint.apiKey,
        temperature,
        httpOptions: { baseUrl: endpoint.baseUrl },
      }),
    realtime: (endpoint, { temperature, language }) =>
      new (plugin('google').realtime.RealtimeModel)({
        model: endpoint.model,
        apiKey: endpoint.apiKey,
        temperature,
        language,
        httpOptions: { baseUrl: endpoint.baseUrl },
        ...(endpoint.voice ? { voice: endpoint.voice } : {}),
      }),
  },
}

/** A setup the worker cannot run: a part is missing or no plugin speaks its protocol. */
export class UnsupportedSetupError extends Error {
  override name = 'UnsupportedSetupError'
}

const builderOf = <Kind extends keyof Builders>(kind: Kind, endpoint: Endpoint | null) => {
  if (!endpoint) throw new UnsupportedSetupError(`the call setup has no ${kind} endpoint`)
  const build = providers[endpoint.api][kind]
  if (!build) {
    throw new UnsupportedSetupError(
      `no ${kind} plugin speaks the ${endpoint.api} protocol (${endpoint.provider})`,
    )
  }
  return build as NonNullable<Builders[Kind]>
}

/**
 * The language model of a pipeline agent: its primary, or, when the agent names a fallback, the
 * framework's FallbackAdapter over both. As in text chat, the switch happens only when the primary
 * fails before its first chunk (a reply half-spoken by one model is not restarted by another).
 */
const buildLanguageModel = (setup: CallSetup, options: Options) => {
  const primary = builderOf('llm', setup.llm)(setup.llm as Endpoint, options)
  if (!setup.fallbackLlm) return primary
  const fallback = builderOf('llm', setup.fallbackLlm)(setup.fallbackLlm, options)
  return new llm.FallbackAdapter({ llms: [primary, fallback], retryOnChunkSent: false })
}

/**
 * How quickly a failing STT or TTS gives way to its fallback: one retry, a short pause, then the
 * next provider (the framework's defaults wait seconds, a long silence on a call).
 */
const FALLBACK_RETRY = { retries: 1, intervalMs: 300 } as const

/**
 * The speech-to-text of a pipeline agent: its own, or, when the agent names a fallback, the
 * framework's FallbackAdapter over both. A provider that fails (an error answer, a lost
 * connection, a timeout) gives way to the next until it recovers.
 *
 * How the adapter is used depends on the primary. A streaming primary (Deepgram, Cartesia,
 * ElevenLabs) is run through the adapter's stream, which switches when the primary's stream
 * fails. A primary that does not stream (OpenAI's transcriptions endpoint and its peers) is cut
 * into utterances by the VAD: the framework's stream wrapper for such an STT logs a failed
 * recognition and carries on (agents 1.9's `StreamAdapterWrapper`), so the adapter's stream would
 * never see it fail and the caller would go unheard. Wrapped the other way round, the VAD's
 * stream adapter hands each utterance to the FallbackAdapter's `recognize`, which sends the same
 * audio to the next STT when one fails.
 */
const buildSpeechToText = (setup: CallSetup, vad: VAD | undefined) => {
  const primary = builderOf('stt', setup.stt)(setup.stt as SttEndpoint)
  if (!setup.fallbackStt) return primary
  const fallback = builderOf('stt', setup.fallbackStt)(setup.fallbackStt)
  const adapter = new stt.FallbackAdapter({
    sttInstances: [primary, fallback],
    ...(vad ? { vad } : {}),
    maxRetryPerSTT: FALLBACK_RETRY.retries,
    retryIntervalMs: FALLBACK_RETRY.intervalMs,
  })
  quietBetweenTurns(adapter)
  if (primary.capabilities.streaming || !vad) return adapter
  return new stt.StreamAdapter(adapter, vad)
}

/**
 * A fallback adapter re-emits its providers' errors, also those of its background recovery
 * probes, which run between turns (and until the adapter is closed) when no session listens: an
 * `error` event nobody listens to throws in Node. The session logs the errors it hears; the
 * adapter itself reports them through availability changes.
 */
const quietBetweenTurns = (adapter: stt.FallbackAdapter | tts.FallbackAdapter) => {
  adapter.on('error', () => undefined)
}

/**
 * A TTS that does not stream (OpenAI's speech endpoint), wrapped once in the framework's sentence
 * by sentence stream adapter. The fallback adapter would wrap it itself, anew for every reply,
 * and that wrapper re-emits the TTS's errors on itself, where nobody listens (agents 1.9): an
 * unhandled `error` event throws.
 */
const streamingSpeech = (speech: tts.TTS) => {
  if (speech.capabilities.streaming) return speech
  const adapter = new tts.StreamAdapter(speech, new tokenize.basic.SentenceTokenizer())
  adapter.on('error', () => undefined)
  return adapter
}

/** The text-to-speech of a pipeline agent: its own, or the framework's FallbackAdapter over it and its fallback. */
const buildTextToSpeech = (setup: CallSetup, options: Options) => {
  const primary = builderOf('tts', setup.tts)(setup.tts as TtsEndpoint, options)
  if (!setup.fallbackTts) return primary
  const fallback = builderOf('tts', setup.fallbackTts)(setup.fallbackTts, options)
  const adapter = new tts.FallbackAdapter({
    ttsInstances: [streamingSpeech(primary), streamingSpeech(fallback)],
    maxRetryPerTTS: FALLBACK_RETRY.retries,
    recoveryDelayMs: FALLBACK_RETRY.intervalMs,
  })
  quietBetweenTurns(adapter)
  return adapter
}

/** The models of a pipeline agent (STT → LLM → TTS), each from its resolved endpoint, with their fallbacks. */
export const buildPipelineModels = (setup: CallSetup, options: Options & { vad?: VAD }) => ({
  stt: buildSpeechToText(setup, options.vad),
  llm: buildLanguageModel(setup, options),
  tts: buildTextToSpeech(setup, options),
})

/** The speech-to-speech model of a realtime agent (OpenAI Realtime, Gemini Live). */
export const buildRealtimeModel = (setup: CallSetup, options: Options) =>
  builderOf('realtime', setup.realtime)(setup.realtime as RealtimeEndpoint, options)

/** A TTS alone, for words said outside a session's agent (an inbound call's refusal). */
export const buildSpeech = (endpoint: TtsEndpoint, language = 'en') =>
  builderOf('tts', endpoint)(endpoint, { temperature: 0, language })

/**
 * What answering-machine detection runs on in a realtime agent's outbound call (the setup's `amd`):
 * a text LLM for the framework's classifier and, when the setup names one, an STT that hears the
 * callee on a side stream of the room audio (the VAD cuts the speech for an STT that does not
 * stream). The caller closes both once detection is over.
 */
export const buildDetectionModels = (endpoints: NonNullable<CallSetup['amd']>, vad?: VAD) => {
  const options = { temperature: 0, language: endpoints.stt?.language ?? 'en' }
  const classifier = builderOf('llm', endpoints.llm)(endpoints.llm, options)
  const listener = endpoints.stt ? builderOf('stt', endpoints.stt)(endpoints.stt) : null
  return {
    llm: classifier,
    stt:
      listener && !listener.capabilities.streaming && vad ? new stt.StreamAdapter(listener, vad) : listener,
  }
}
