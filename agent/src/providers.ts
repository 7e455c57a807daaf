import { llm, type stt, type tts } from '@livekit/agents'
import * as cartesia from '@livekit/agents-plugin-cartesia'
import * as deepgram from '@livekit/agents-plugin-deepgram'
import * as elevenlabs from '@livekit/agents-plugin-elevenlabs'
import * as google from '@livekit/agents-plugin-google'
import * as openai from '@livekit/agents-plugin-openai'
import type { CallSetup, ResolvedEndpoint } from '@parley/shared'

type Endpoint = ResolvedEndpoint
type SttEndpoint = NonNullable<CallSetup['stt']>
type TtsEndpoint = NonNullable<CallSetup['tts']>
type RealtimeEndpoint = NonNullable<CallSetup['realtime']>
type Options = { temperature: number; language: string }

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
      new openai.LLM({
        model: endpoint.model,
        baseURL: endpoint.baseUrl,
        apiKey: endpoint.apiKey,
        temperature,
      }),
    // The transcriptions endpoint (whisper-1 and its OpenAI-compatible peers, e.g. Groq's): the
    // plugin's default is OpenAI's realtime WebSocket, which other providers do not serve.
    stt: (endpoint) =>
      new openai.STT({
        useRealtime: false,
        model: endpoint.model,
        baseURL: endpoint.baseUrl,
        apiKey: endpoint.apiKey,
        language: endpoint.language,
      }),
    tts: (endpoint) =>
      new openai.TTS({
        model: endpoint.model,
        baseURL: endpoint.baseUrl,
        apiKey: endpoint.apiKey,
        voice: endpoint.voice as openai.TTSVoices,
      }),
    // OpenAI's Realtime session has no temperature (the plugin sends none): the server refuses
    // one for these agents, so none is passed here as if it reached the model.
    realtime: (endpoint) =>
      new openai.realtime.RealtimeModel({
        model: endpoint.model,
        baseURL: endpoint.baseUrl,
        apiKey: endpoint.apiKey,
        ...(endpoint.voice ? { voice: endpoint.voice } : {}),
      }),
  },
  deepgram: {
    stt: (endpoint) =>
      new deepgram.STT({
        model: endpoint.model,
        baseUrl: deepgramRoot(endpoint.baseUrl),
        apiKey: endpoint.apiKey,
        language: endpoint.language,
      }),
    // Deepgram's voices are models (`aura-2-thalia-en`).
    tts: (endpoint) =>
      new deepgram.TTS({
        model: endpoint.voice || endpoint.model,
        baseUrl: deepgramRoot(endpoint.baseUrl),
        apiKey: endpoint.apiKey,
      }),
  },
  elevenlabs: {
    stt: (endpoint) =>
      new elevenlabs.STT({
        model: endpoint.model,
        baseURL: endpoint.baseUrl,
        apiKey: endpoint.apiKey,
        languageCode: endpoint.language,
      }),
    tts: (endpoint, { language }) =>
      new elevenlabs.TTS({
        model: endpoint.model,
        voiceId: endpoint.voice,
        baseURL: endpoint.baseUrl,
        apiKey: endpoint.apiKey,
        language,
      }),
  },
  cartesia: {
    stt: (endpoint) =>
      new cartesia.STT({
        model: endpoint.model,
        baseUrl: endpoint.baseUrl,
        apiKey: endpoint.apiKey,
        language: endpoint.language,
      }),
    tts: (endpoint, { language }) =>
      new cartesia.TTS({
        model: endpoint.model,
        voice: endpoint.voice,
        baseUrl: endpoint.baseUrl,
        apiKey: endpoint.apiKey,
        language,
      }),
  },
  google: {
    llm: (endpoint, { temperature }) =>
      new google.LLM({
        model: endpoint.model,
        apiKey: endpoint.apiKey,
        temperature,
        httpOptions: { baseUrl: endpoint.baseUrl },
      }),
    realtime: (endpoint, { temperature, language }) =>
      new google.realtime.RealtimeModel({
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

/** The models of a pipeline agent (STT → LLM → TTS), each from its resolved endpoint. */
export const buildPipelineModels = (setup: CallSetup, options: Options) => {
  const { stt, tts } = setup
  return {
    stt: builderOf('stt', stt)(stt as SttEndpoint),
    llm: buildLanguageModel(setup, options),
    tts: builderOf('tts', tts)(tts as TtsEndpoint, options),
  }
}

/** The speech-to-speech model of a realtime agent (OpenAI Realtime, Gemini Live). */
export const buildRealtimeModel = (setup: CallSetup, options: Options) =>
  builderOf('realtime', setup.realtime)(setup.realtime as RealtimeEndpoint, options)
