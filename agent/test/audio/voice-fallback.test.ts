import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inference, initializeLogger } from '@livekit/agents'
import { builtInCatalogue } from '@parley/platform'
import type { Catalogue } from '@parley/shared'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { type FakeLlm, startFakeLlm } from '../../../server/test/helpers/fake-llm.ts'
import { createWorkerApi } from '../../src/worker-api.ts'
import { type Parley, startParley } from '../helpers/parley.ts'
import { type FakeOpenAiAudio, startFakeOpenAiAudio } from './fake-openai-audio.ts'
import { AUDIO_AGENT, audioCalls } from './harness.ts'
import { speechOf } from './speech.ts'

/**
 * A voice agent's fallback STT and TTS, through the framework's fallback adapters on real audio:
 * the agent's own provider (OpenAI's audio endpoints, faked) answers 500, the fallback provider
 * (Groq's OpenAI-compatible endpoints, a second fake) answers, and the call goes on.
 */

initializeLogger({ pretty: false, level: 'fatal' })

let parley: Parley
let llm: FakeLlm
let primary: FakeOpenAiAudio
let fallback: FakeOpenAiAudio
let calls: ReturnType<typeof audioCalls>
const vad = new inference.VAD()

/** The built-in catalogue with a TTS on Groq's OpenAI-compatible endpoint, to fall back to. */
const catalogueFile = () => {
  const catalogue: Catalogue = {
    ...builtInCatalogue,
    tts: [
      ...builtInCatalogue.tts,
      { id: 'groq-tts', name: 'Groq TTS', provider: 'groq', providerModel: 'playai-tts' },
    ],
    voices: [
      ...builtInCatalogue.voices,
      {
        voiceId: 'groq-celeste',
        voiceName: 'Celeste',
        provider: 'groq-tts',
        providerVoiceId: 'Celeste-PlayAI',
      },
    ],
  }
  const path = join(mkdtempSync(join(tmpdir(), 'parley-catalogue-')), 'catalogue.json')
  writeFileSync(path, JSON.stringify(catalogue))
  return path
}

beforeAll(async () => {
  ;[llm, primary, fallback] = await Promise.all([
    startFakeLlm(),
    startFakeOpenAiAudio(),
    startFakeOpenAiAudio(),
  ])
  parley = await startParley({
    env: {
      CATALOGUE_FILE: catalogueFile(),
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: 'sk-fake-llm',
      OPENAI_BASE_URL: primary.baseUrl,
      OPENAI_API_KEY: 'sk-platform-openai',
      GROQ_BASE_URL: fallback.baseUrl,
      GROQ_API_KEY: 'gsk-platform-groq',
    },
  })
  calls = audioCalls({
    parley,
    api: createWorkerApi({ apiUrl: parley.server.url, workerToken: parley.workerToken }),
    vad,
  })
}, 240_000)

afterEach(async () => {
  await calls.closeAll()
  llm.reset()
  primary.reset()
  fallback.reset()
})

afterAll(async () => {
  await parley?.close()
  await Promise.all([llm?.close(), primary?.close(), fallback?.close()])
})

describe('fallback STT and TTS', { timeout: 60_000 }, () => {
  it('hear and speak through the fallback providers when the agent’s own answer 500', async () => {
    const question = await speechOf('What time do you open tomorrow?')
    const agent = await parley.makeVoiceAgent({
      ...AUDIO_AGENT,
      greetingType: 'userFirst',
      fallbackStt: 'groq-whisper-large-v3-turbo',
      fallbackTts: 'groq-tts',
    })
    const call = await calls.start(agent.id)
    expect(call.setup).toMatchObject({
      fallbackStt: { provider: 'groq', model: 'whisper-large-v3-turbo', language: 'en' },
      fallbackTts: { provider: 'groq', model: 'playai-tts', voice: 'Celeste-PlayAI' },
    })
    primary.failWith(500)
    fallback.transcribe('What time do you open tomorrow?')
    llm.queue({ text: ['We open', ' at nine.'] })
    const answer = call.output.nextSegment()
    await call.input.play(question)
    const segment = await answer

    // The agent's own STT and TTS were asked and failed; the fallbacks heard and spoke.
    expect(primary.failed).toContain('/v1/audio/transcriptions')
    expect(primary.failed).toContain('/v1/audio/speech')
    expect(
      fallback.transcriptions.map(({ text, model, authorization }) => [text, model, authorization]),
    ).toEqual([['What time do you open tomorrow?', 'whisper-large-v3-turbo', 'Bearer gsk-platform-groq']])
    expect(llm.requests[0]?.messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'What time do you open tomorrow?',
    })
    expect(fallback.syntheses.map(({ input, model, voice }) => [input, model, voice])).toEqual([
      ['We open at nine.', 'playai-tts', 'Celeste-PlayAI'],
    ])
    await vi.waitFor(() => expect(segment.finishedAt).toBeDefined(), { timeout: 15_000 })
    expect(segment.capturedMs).toBeGreaterThan(0)
    // The call went on: both turns are in its transcript.
    await vi.waitFor(
      async () =>
        expect(await call.transcript()).toEqual([
          ['user', 'What time do you open tomorrow?'],
          ['assistant', 'We open at nine.'],
        ]),
      { timeout: 20_000 },
    )
    expect((await parley.readCall(call.callId)).status).toBe('active')
  })
})
