import { inference, initializeLogger, log, stt as stt_, tts as tts_ } from '@livekit/agents'
import * as google from '@livekit/agents-plugin-google'
import * as openai from '@livekit/agents-plugin-openai'
import type { AgentRuntimeConfig, CallSetup, DispatchMetadata, ResolvedEndpoint } from '@parley/shared'
import { describe, expect, it } from 'vitest'
import { buildDetectionModels, UnsupportedSetupError } from './providers.ts'
import { buildCallSession } from './session.ts'
import { createWorkerApi } from './worker-api.ts'
import '../test/helpers/plugins.ts'

initializeLogger({ pretty: false, level: 'fatal' })

const endpoint = (api: ResolvedEndpoint['api'], model: string, baseUrl: string): ResolvedEndpoint => ({
  provider: api,
  api,
  baseUrl,
  apiKey: `key-for-${api}`,
  model,
  keySource: 'organization',
})

const runtime = (overrides: Partial<AgentRuntimeConfig>): AgentRuntimeConfig => ({
  id: 'agent_1',
  name: 'Support',
  architecture: 'pipeline',
  prompt: 'You help.',
  model: 'gpt-4o-mini',
  stt: 'deepgram-nova-3',
  tts: 'cartesia-sonic-2',
  voice: 'cartesia-katie',
  realtimeProvider: null,
  greetingType: 'agentFirst',
  greeting: null,
  lastMessage: null,
  temperature: 0.3,
  inactivityTimeout: 30,
  languages: ['en'],
  functionCallingEnabled: false,
  builtInFunctions: [],
  customFunctions: [],
  handoffAgents: [],
  transferDestinations: [],
  voicemail: { action: 'hang_up', message: null, onPhoneMenu: 'navigate' },
  ...overrides,
})

const noSetup: CallSetup = {
  llm: null,
  fallbackLlm: null,
  stt: null,
  tts: null,
  fallbackStt: null,
  fallbackTts: null,
  realtime: null,
  functions: [],
  webSearch: null,
  history: [],
  memory: null,
  amd: null,
}

/** Builds the call's first agent; nothing here opens a connection. */
const agentFor = (agent: AgentRuntimeConfig, setup: CallSetup) => {
  const metadata: DispatchMetadata = {
    version: 1,
    callId: 'call_1',
    organizationId: 'org_1',
    roomName: 'room_1',
    direction: 'web',
    userId: 'user_1',
    agent,
  }
  const services = {
    api: createWorkerApi({ apiUrl: 'http://127.0.0.1:9', workerToken: 'w'.repeat(32) }),
    allowHosts: [],
    vad: new inference.VAD(),
    shutdown: () => {},
    logger: log(),
  }
  return buildCallSession({ metadata, setup, services }).agent
}

describe('the provider table', () => {
  it('builds an OpenAI Realtime agent from its resolved endpoint: model, voice, base URL and key', () => {
    const realtime = {
      ...endpoint('openai', 'gpt-realtime', 'https://realtime.example.test/v1'),
      voice: 'marin',
    }
    const agent = agentFor(runtime({ architecture: 'realtime', realtimeProvider: 'openai' }), {
      ...noSetup,
      realtime,
    })
    expect(agent.llm).toBeInstanceOf(openai.realtime.RealtimeModel)
    const model = agent.llm as openai.realtime.RealtimeModel
    expect([model.model, model.provider]).toEqual(['gpt-realtime', 'realtime.example.test'])
    expect(model._options).toMatchObject({ voice: 'marin', apiKey: 'key-for-openai' })
    expect([agent.stt, agent.tts]).toEqual([undefined, undefined])
  })

  it('builds a Gemini Live agent with the Google plugin, in the agent’s language', () => {
    const realtime = {
      ...endpoint('google', 'gemini-live-2.5-flash', 'https://gemini.example.test'),
      voice: 'Puck',
    }
    const agent = agentFor(
      runtime({ architecture: 'realtime', realtimeProvider: 'gemini', languages: ['ur'], temperature: 0.9 }),
      { ...noSetup, realtime },
    )
    expect(agent.llm).toBeInstanceOf(google.realtime.RealtimeModel)
    const model = agent.llm as google.realtime.RealtimeModel
    expect(model.model).toBe('gemini-live-2.5-flash')
    expect(model._options).toMatchObject({
      voice: 'Puck',
      apiKey: 'key-for-google',
      temperature: 0.9,
      httpOptions: { baseUrl: 'https://gemini.example.test' },
    })
  })

  it('builds a pipeline agent’s STT, LLM and TTS each with its own protocol’s plugin', () => {
    const agent = agentFor(runtime({}), {
      ...noSetup,
      llm: endpoint('openai', 'llama-3.3-70b-versatile', 'https://api.groq.example.test/openai/v1'),
      stt: { ...endpoint('deepgram', 'nova-3', 'https://api.deepgram.com'), language: 'en' },
      tts: { ...endpoint('cartesia', 'sonic-2', 'https://api.cartesia.ai'), voice: 'a0e99841' },
    })
    expect([agent.llm?.label(), agent.llm?.model, agent.llm?.provider]).toEqual([
      'openai.LLM',
      'llama-3.3-70b-versatile',
      'api.groq.example.test',
    ])
    expect([agent.stt?.label, agent.stt?.model]).toEqual(['deepgram.STT', 'nova-3'])
    expect([agent.tts?.label, agent.tts?.model]).toEqual(['cartesia.TTS', 'sonic-2'])
  })

  it('wraps the STT and TTS in the framework’s fallback adapters when the setup names fallbacks', () => {
    const stt = { ...endpoint('openai', 'whisper-1', 'http://127.0.0.1:9/v1'), language: 'en' }
    const tts = { ...endpoint('openai', 'tts-1', 'http://127.0.0.1:9/v1'), voice: 'alloy' }
    const agent = agentFor(runtime({}), {
      ...noSetup,
      llm: endpoint('openai', 'gpt-4o-mini', 'http://127.0.0.1:9/v1'),
      stt,
      tts,
      fallbackStt: { ...stt, provider: 'groq', model: 'whisper-large-v3-turbo' },
      fallbackTts: { ...tts, provider: 'groq', model: 'playai-tts' },
      memory: 'User: I am vegetarian.',
    })
    // The primary answers whole utterances: the call's VAD cuts the speech, and each utterance
    // goes to the adapter's recognize, which hands it to the next STT when one fails.
    expect(agent.stt).toBeInstanceOf(stt_.StreamAdapter)
    expect(agent.stt?.label).toBe('stt.StreamAdapter<stt.FallbackAdapter>')
    expect(agent.tts).toBeInstanceOf(tts_.FallbackAdapter)
    // Each speech endpoint is wrapped once in the sentence stream adapter.
    expect((agent.tts as tts_.FallbackAdapter).ttsInstances.map((one) => one.label)).toEqual([
      'tts.StreamAdapter<openai.TTS>',
      'tts.StreamAdapter<openai.TTS>',
    ])
    // The caller's memory from the setup is in the agent's instructions, as chat puts it.
    expect(agent.instructions).toContain(
      'What you remember about this person from earlier conversations:\nUser: I am vegetarian.',
    )
  })

  it('runs a streaming primary STT through the fallback adapter’s own stream', () => {
    const agent = agentFor(runtime({}), {
      ...noSetup,
      llm: endpoint('openai', 'gpt-4o-mini', 'http://127.0.0.1:9/v1'),
      stt: { ...endpoint('deepgram', 'nova-3', 'http://127.0.0.1:9'), language: 'en' },
      tts: { ...endpoint('openai', 'tts-1', 'http://127.0.0.1:9/v1'), voice: 'alloy' },
      fallbackStt: { ...endpoint('openai', 'whisper-1', 'http://127.0.0.1:9/v1'), language: 'en' },
    })
    expect(agent.stt).toBeInstanceOf(stt_.FallbackAdapter)
    expect((agent.stt as stt_.FallbackAdapter).sttInstances.map((one) => one.label)).toEqual([
      'deepgram.STT',
      'stt.StreamAdapter<openai.STT>',
    ])
  })

  it('serves any OpenAI-compatible endpoint for all three parts, and ElevenLabs voices', () => {
    const agent = agentFor(runtime({}), {
      ...noSetup,
      llm: endpoint('openai', 'local-model', 'http://127.0.0.1:11434/v1'),
      stt: { ...endpoint('openai', 'whisper-1', 'http://127.0.0.1:11434/v1'), language: 'en' },
      tts: {
        ...endpoint('elevenlabs', 'eleven_flash_v2_5', 'https://api.elevenlabs.io/v1'),
        voice: '21m00Tcm',
      },
    })
    expect(agent.llm?.provider).toBe('127.0.0.1:11434')
    expect([agent.stt?.label, agent.stt?.model]).toEqual(['openai.STT', 'whisper-1'])
    expect([agent.tts?.label, agent.tts?.model]).toEqual(['elevenlabs.TTS', 'eleven_flash_v2_5'])
  })

  it('refuses a setup it cannot run: a missing part, or a protocol with no plugin for that part', () => {
    const stt = { ...endpoint('deepgram', 'nova-3', 'https://api.deepgram.com'), language: 'en' }
    const tts = { ...endpoint('cartesia', 'sonic-2', 'https://api.cartesia.ai'), voice: 'v' }
    expect(() => agentFor(runtime({}), { ...noSetup, stt, tts })).toThrow(UnsupportedSetupError)
    expect(() =>
      agentFor(runtime({}), { ...noSetup, stt, tts, llm: endpoint('deepgram', 'nova-3', 'https://x.test') }),
    ).toThrow(/no llm plugin speaks the deepgram protocol/)
    expect(() => agentFor(runtime({ architecture: 'realtime' }), noSetup)).toThrow(/no realtime endpoint/)
  })

  it("builds a realtime agent's detection models: the text LLM, and the STT streaming on the VAD", () => {
    const vad = new inference.VAD()
    const llm = endpoint('openai', 'gpt-4o-mini', 'http://127.0.0.1:11434/v1')
    const streaming = buildDetectionModels(
      { llm, stt: { ...endpoint('deepgram', 'nova-3', 'https://api.deepgram.com/v1'), language: 'ur' } },
      vad,
    )
    expect(streaming.llm).toBeInstanceOf(openai.LLM)
    expect(streaming.llm.model).toBe('gpt-4o-mini')
    expect([streaming.stt?.label, streaming.stt?.model]).toEqual(['deepgram.STT', 'nova-3'])
    // An STT that does not stream gets the framework's adapter: detection reads a stream.
    const cut = buildDetectionModels(
      { llm, stt: { ...endpoint('openai', 'whisper-1', 'http://127.0.0.1:11434/v1'), language: 'en' } },
      vad,
    )
    expect(cut.stt).toBeInstanceOf(stt_.StreamAdapter)
    expect(cut.stt?.capabilities.streaming).toBe(true)
    expect(buildDetectionModels({ llm, stt: null }).stt).toBeNull()
  })
})
