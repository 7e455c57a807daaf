import { inference, initializeLogger } from '@livekit/agents'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { type FakeLlm, startFakeLlm } from '../../../server/test/helpers/fake-llm.ts'
import { createWorkerApi } from '../../src/worker-api.ts'
import { type Parley, startParley } from '../helpers/parley.ts'
import { type FakeCartesia, startFakeCartesia } from './fake-cartesia.ts'
import { type FakeDeepgram, startFakeDeepgram } from './fake-deepgram.ts'
import { type FakeOpenAiAudio, startFakeOpenAiAudio } from './fake-openai-audio.ts'
import { audioCalls } from './harness.ts'
import { speechOf } from './speech.ts'

/**
 * Calls with sound whose provider fails, and providers beyond OpenAI's audio endpoints: each on
 * the framework's real pipeline and the real plugins, against fakes of the providers' wire
 * formats on loopback ports. The server resolves every endpoint from the agent's catalogue ids
 * and the deployment's provider variables, as in production:
 * - OpenAI (whisper-1, openai-tts-1) → `openai`, a fake of OpenAI's audio endpoints;
 * - Groq (groq-whisper-large-v3-turbo) → `groq`, a second fake of the same endpoints;
 * - Deepgram (deepgram-nova-3) → `deepgram`, a fake of Deepgram's streaming WebSocket;
 * - Cartesia (cartesia-sonic-2) → `cartesia`, a fake of Cartesia's TTS WebSocket;
 * - the agent's model (gemini-2.0-flash) → Gemini's OpenAI-compatible path on the suite's fake LLM.
 */

initializeLogger({ pretty: false, level: (process.env.AUDIO_LOG_LEVEL as 'fatal') ?? 'fatal' })

let parley: Parley
let llm: FakeLlm
let openai: FakeOpenAiAudio
let groq: FakeOpenAiAudio
let deepgram: FakeDeepgram
let cartesia: FakeCartesia
let calls: ReturnType<typeof audioCalls>
const vad = new inference.VAD()

/** A pipeline agent on these fakes: OpenAI's STT and TTS, a model on the fake LLM. */
const AGENT = {
  agentArchitecture: 'pipeline',
  model: 'gemini-2.0-flash',
  stt: 'whisper-1',
  tts: 'openai-tts-1',
  voiceId: 'openai-alloy',
  greetingType: 'userFirst',
} as const

/**
 * The framework probes a TTS that failed with this sentence in the background until it answers
 * again, also after its call ended: the tests leave those probes out of what a caller heard.
 */
const RECOVERY_PROBE = 'Hello world, this is a recovery test.'
const spokenByOpenAi = () => openai.syntheses.filter(({ input }) => input !== RECOVERY_PROBE)

/**
 * The framework's TTS fallback probes a failed provider in the background with a one-shot
 * synthesis, and a failed probe leaves a rejected promise nobody awaits (agents 1.9). The job
 * process a call runs in logs and drops unhandled rejections (the framework's
 * `job_proc_lazy_main`), so a call goes on; this file does the same for those probes only, and
 * checks at the end that nothing else was left unhandled.
 */
const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => void unhandled.push(reason)
const fromTtsProbe = (reason: unknown) =>
  reason instanceof Error && /ChunkedStream/.test(reason.stack ?? '') && /tts\.js/.test(reason.stack ?? '')

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled)
  ;[llm, openai, groq, deepgram, cartesia] = await Promise.all([
    startFakeLlm(),
    startFakeOpenAiAudio(),
    startFakeOpenAiAudio(),
    startFakeDeepgram(),
    startFakeCartesia(),
  ])
  parley = await startParley({
    env: {
      OPENAI_BASE_URL: openai.baseUrl,
      OPENAI_API_KEY: 'sk-platform-openai',
      GROQ_BASE_URL: groq.baseUrl,
      GROQ_API_KEY: 'gsk-platform-groq',
      // Gemini's OpenAI-compatible path is `<base>/v1beta/openai`; the fake LLM answers any path.
      GEMINI_BASE_URL: llm.baseUrl.replace(/\/v1$/, ''),
      GEMINI_API_KEY: 'gm-platform-gemini',
      DEEPGRAM_BASE_URL: deepgram.baseUrl,
      CARTESIA_BASE_URL: cartesia.baseUrl,
    },
  })
  calls = audioCalls({
    parley,
    api: createWorkerApi({ apiUrl: parley.server.url, workerToken: parley.workerToken }),
    vad,
  })
})

afterEach(async () => {
  await calls.closeAll()
  llm.reset()
  openai.reset()
  groq.reset()
  deepgram.reset()
  cartesia.reset()
})

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled)
  expect(unhandled.filter((reason) => !fromTtsProbe(reason))).toEqual([])
  await parley?.close()
  await Promise.all([llm?.close(), openai?.close(), groq?.close(), deepgram?.close(), cartesia?.close()])
})

describe('a call whose provider fails', { timeout: 60_000 }, () => {
  it('hears the caller through the fallback STT when its own STT answers 500, and answers', async () => {
    const question = await speechOf('Do you deliver on Sundays?')
    const agent = await parley.makeVoiceAgent({ ...AGENT, fallbackStt: 'groq-whisper-large-v3-turbo' })
    const call = await calls.start(agent.id)
    expect(call.setup.fallbackStt).toMatchObject({ provider: 'groq', model: 'whisper-large-v3-turbo' })
    openai.failWith(500, '/v1/audio/transcriptions')
    groq.transcribe('Do you deliver on Sundays?')
    llm.queue({ text: ['Yes, every Sunday.'] })
    const answer = call.output.nextSegment()
    await call.input.play(question)
    const segment = await answer

    // OpenAI's transcription failed; Groq's heard the question, with Groq's own key and model.
    expect(openai.failed).toContain('/v1/audio/transcriptions')
    expect(openai.transcriptions).toEqual([])
    expect(groq.transcriptions).toHaveLength(1)
    expect(groq.transcriptions[0]).toMatchObject({
      model: 'whisper-large-v3-turbo',
      authorization: 'Bearer gsk-platform-groq',
      text: 'Do you deliver on Sundays?',
    })
    expect(llm.requests[0]?.messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'Do you deliver on Sundays?',
    })
    // The answer was spoken by the agent's own TTS, which did not fail.
    expect(spokenByOpenAi().map(({ input }) => input)).toEqual(['Yes, every Sunday.'])
    expect(segment.capturedMs).toBeGreaterThan(0)
    await vi.waitFor(
      async () =>
        expect(await call.transcript()).toEqual([
          ['user', 'Do you deliver on Sundays?'],
          ['assistant', 'Yes, every Sunday.'],
        ]),
      { timeout: 20_000 },
    )
    expect((await parley.readCall(call.callId)).status).not.toBe('ended')
  })

  it('hears the caller through the fallback STT when its own STT drops the connection', async () => {
    const question = await speechOf('Is the shop open today?')
    const agent = await parley.makeVoiceAgent({ ...AGENT, fallbackStt: 'groq-whisper-large-v3-turbo' })
    const call = await calls.start(agent.id)
    openai.failWith('drop', '/v1/audio/transcriptions')
    groq.transcribe('Is the shop open today?')
    llm.queue({ text: ['It is, until six.'] })
    const answer = call.output.nextSegment()
    await call.input.play(question)
    await answer
    expect(openai.failed).toContain('/v1/audio/transcriptions')
    expect(groq.transcriptions.map(({ text }) => text)).toEqual(['Is the shop open today?'])
    expect(spokenByOpenAi().map(({ input }) => input)).toEqual(['It is, until six.'])
    await vi.waitFor(
      async () =>
        expect(await call.transcript()).toEqual([
          ['user', 'Is the shop open today?'],
          ['assistant', 'It is, until six.'],
        ]),
      { timeout: 20_000 },
    )
  })

  // The TTS fallbacks run OpenAI's TTS first and Cartesia's second: once a provider failed, the
  // framework probes it in the background with a one-shot synthesis until it recovers, and
  // Cartesia's plugin sends that one over https whatever its base URL, which a loopback fake on
  // plain http cannot answer (the probes' failures would outlive the test).
  it.each([
    ['answers 500', 500],
    ['drops the connection', 'drop'],
  ] as const)('says the answer through the fallback TTS when its own TTS %s', async (_how, failure) => {
    const question = await speechOf('Can I book a table for two?')
    const agent = await parley.makeVoiceAgent({ ...AGENT, fallbackTts: 'cartesia-sonic-2' })
    const call = await calls.start(agent.id)
    expect(call.setup.fallbackTts).toMatchObject({ provider: 'cartesia', model: 'sonic-2' })
    openai.failWith(failure, '/v1/audio/speech')
    openai.transcribe('Can I book a table for two?')
    llm.queue({ text: ['Of course, for what time?'] })
    const answer = call.output.nextSegment()
    await call.input.play(question)
    const segment = await answer

    expect(openai.failed).toContain('/v1/audio/speech')
    expect(spokenByOpenAi()).toEqual([])
    expect(cartesia.generations.map(({ text, voice }) => [text, voice.id])).toEqual([
      ['Of course, for what time?', call.setup.fallbackTts?.voice],
    ])
    await vi.waitFor(() => expect(segment.finishedAt).toBeDefined(), { timeout: 10_000 })
    expect(segment.capturedMs).toBeGreaterThan((cartesia.generations[0]?.audioMs ?? 0) - 100)
    await vi.waitFor(
      async () =>
        expect(await call.transcript()).toEqual([
          ['user', 'Can I book a table for two?'],
          ['assistant', 'Of course, for what time?'],
        ]),
      { timeout: 20_000 },
    )
  })
})

describe('a call on streaming providers', { timeout: 60_000 }, () => {
  it('hears a spoken question through Deepgram’s streaming STT', async () => {
    const question = await speechOf('What time do you open tomorrow?')
    const agent = await parley.makeVoiceAgent({ ...AGENT, stt: 'deepgram-nova-3' })
    const call = await calls.start(agent.id)
    deepgram.transcribe('What time do you open tomorrow?')
    llm.queue({ text: ['We open at nine.'] })
    const answer = call.output.nextSegment()
    const played = await call.input.play(question)
    await answer

    // One stream, opened as the plugin opens it, with the platform's Deepgram key.
    expect(deepgram.streams).toHaveLength(1)
    const [stream] = deepgram.streams
    expect(stream?.authorization).toBe('Token dg-platform-key')
    expect(stream?.query).toMatchObject({
      model: 'nova-3',
      encoding: 'linear16',
      sample_rate: '16000',
      channels: '1',
      interim_results: 'true',
      vad_events: 'true',
      language: 'en',
    })
    // It heard the question (the plugin leaves out quiet audio: at least the speech went through).
    expect(stream?.audioMs).toBeGreaterThanOrEqual(played.durationMs - 200)
    expect(stream?.finals.flatMap(({ text }) => (text ? [text] : []))).toEqual([
      'What time do you open tomorrow?',
    ])
    expect(llm.requests[0]?.messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'What time do you open tomorrow?',
    })
    expect(spokenByOpenAi().map(({ input }) => input)).toEqual(['We open at nine.'])
    await vi.waitFor(
      async () =>
        expect(await call.transcript()).toEqual([
          ['user', 'What time do you open tomorrow?'],
          ['assistant', 'We open at nine.'],
        ]),
      { timeout: 20_000 },
    )
    // Ending the call closes the stream the way Deepgram asks: CloseStream, then its Metadata.
    await calls.closeAll()
    await vi.waitFor(() => expect(stream?.closedAfterCloseStream).toBe(true), { timeout: 10_000 })
    expect(stream?.controls).toContain('CloseStream')
  })

  it('speaks the answer through Cartesia’s TTS WebSocket', async () => {
    const question = await speechOf('What time do you open tomorrow?')
    const agent = await parley.makeVoiceAgent({
      ...AGENT,
      tts: 'cartesia-sonic-2',
      voiceId: 'cartesia-katie',
    })
    const call = await calls.start(agent.id)
    openai.transcribe('What time do you open tomorrow?')
    llm.queue({ text: ['We open at nine', ' in the morning.'] })
    const answer = call.output.nextSegment()
    await call.input.play(question)
    const segment = await answer

    expect(cartesia.generations).toHaveLength(1)
    const [generation] = cartesia.generations
    expect(generation).toMatchObject({
      text: 'We open at nine in the morning.',
      modelId: 'sonic-2',
      voice: { mode: 'id', id: 'f786b574-daa5-4673-aa0c-cbe3e8534c02' },
      language: 'en',
      outputFormat: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 24_000 },
      apiKey: 'ca-platform-key',
      addTimestamps: true,
      done: true,
    })
    expect(generation?.version).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(spokenByOpenAi()).toEqual([])
    // The caller heard Cartesia's audio to the end.
    await vi.waitFor(() => expect(segment.finishedAt).toBeDefined(), { timeout: 10_000 })
    expect(segment.interrupted).toBe(false)
    expect(segment.capturedMs).toBeGreaterThan((generation?.audioMs ?? 0) - 100)
    expect(segment.firstFrameAt).toBeGreaterThanOrEqual(generation?.firstChunkAt ?? 0)
    await vi.waitFor(
      async () =>
        expect(await call.transcript()).toEqual([
          ['user', 'What time do you open tomorrow?'],
          ['assistant', 'We open at nine in the morning.'],
        ]),
      { timeout: 20_000 },
    )
  })
})
