import { inference, initializeLogger } from '@livekit/agents'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { type FakeLlm, startFakeLlm } from '../../../server/test/helpers/fake-llm.ts'
import { createWorkerApi } from '../../src/worker-api.ts'
import { type Parley, startParley } from '../helpers/parley.ts'
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
 * - the agent's model (gemini-2.0-flash) → Gemini's OpenAI-compatible path on the suite's fake LLM.
 */

initializeLogger({ pretty: false, level: (process.env.AUDIO_LOG_LEVEL as 'fatal') ?? 'fatal' })

let parley: Parley
let llm: FakeLlm
let openai: FakeOpenAiAudio
let groq: FakeOpenAiAudio
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

beforeAll(async () => {
  ;[llm, openai, groq] = await Promise.all([startFakeLlm(), startFakeOpenAiAudio(), startFakeOpenAiAudio()])
  parley = await startParley({
    env: {
      OPENAI_BASE_URL: openai.baseUrl,
      OPENAI_API_KEY: 'sk-platform-openai',
      GROQ_BASE_URL: groq.baseUrl,
      GROQ_API_KEY: 'gsk-platform-groq',
      // Gemini's OpenAI-compatible path is `<base>/v1beta/openai`; the fake LLM answers any path.
      GEMINI_BASE_URL: llm.baseUrl.replace(/\/v1$/, ''),
      GEMINI_API_KEY: 'gm-platform-gemini',
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
})

afterAll(async () => {
  await parley?.close()
  await Promise.all([llm?.close(), openai?.close(), groq?.close()])
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
    expect(openai.syntheses.map(({ input }) => input)).toEqual(['Yes, every Sunday.'])
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
    expect(openai.syntheses.map(({ input }) => input)).toEqual(['It is, until six.'])
    await vi.waitFor(
      async () =>
        expect(await call.transcript()).toEqual([
          ['user', 'Is the shop open today?'],
          ['assistant', 'It is, until six.'],
        ]),
      { timeout: 20_000 },
    )
  })
})
