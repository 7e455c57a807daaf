import { inference, initializeLogger, log, voice } from '@livekit/agents'
import { readDispatch } from '../agent/src/dispatch.ts'
import { loadProvidersFor } from '../agent/src/providers.ts'
import { buildCallSession } from '../agent/src/session.ts'
import { createWorkerApi } from '../agent/src/worker-api.ts'
import { PacedAudioInput, RecordingAudioOutput, type Segment } from '../agent/test/audio/audio-io.ts'
import { startFakeOpenAiAudio } from '../agent/test/audio/fake-openai-audio.ts'
import { speechOf } from '../agent/test/audio/speech.ts'
import { startFakeLlm } from '../server/test/helpers/fake-llm.ts'

/**
 * The worker's side of bench/voice.ts, in a process of its own as in production (the server, with
 * its embedded database, would otherwise share this event loop): the fake providers, and one call
 * on the audio harness talked to for `turns` turns. Reports each turn's stages, in ms after the
 * end of the caller's speech.
 */

/** The fakes' fixed latencies: each answers after this long. */
export const STT_MS = 100
export const LLM_MS = 100
export const TTS_MS = 100

const QUESTIONS = [
  'What time do you open tomorrow?',
  'Can I change my delivery address?',
  'How much is the blue mug?',
  'Do you ship to Canada?',
]

export type Turn = {
  vadEstimate: number
  committed: number
  vadEnd: number
  sttRequest: number
  sttFinal: number
  llmRequest: number
  llmFirstToken: number
  ttsRequest: number
  ttsFirstByte: number
  firstFrame: number
}

export type CallRequest = { apiUrl: string; workerToken: string; metadata: string; turns: number }

initializeLogger({ pretty: false, level: 'fatal' })
const llm = await startFakeLlm()
llm.setFallback({ text: ['Sure, we can do that.'], delayMs: LLM_MS })
const audio = await startFakeOpenAiAudio({ sttLatencyMs: STT_MS, ttsLatencyMs: TTS_MS, msPerWord: 100 })

const runCall = async ({ apiUrl, workerToken, metadata, turns: count }: CallRequest) => {
  const dispatch = readDispatch(metadata)
  if (!dispatch.ok) throw new Error(`metadata refused: ${dispatch.problem}`)
  const api = createWorkerApi({ apiUrl, workerToken })
  const setup = await api.setup(dispatch.metadata.callId)
  await loadProvidersFor(setup)
  const built = buildCallSession({
    metadata: dispatch.metadata,
    setup,
    services: { api, allowHosts: [], vad: new inference.VAD(), shutdown: () => {}, logger: log() },
  })
  const session = built.session
  const input = new PacedAudioInput()
  const output = new RecordingAudioOutput()
  session.input.audio = input
  session.output.audio = output
  const vadEnds: number[] = []
  session.on(voice.AgentSessionEventTypes.UserStateChanged, ({ oldState, newState }) => {
    if (oldState === 'speaking' && newState !== 'speaking') vadEnds.push(Date.now())
  })
  /** The user turns' metrics: the VAD's estimate of the end of speech and the endpointing delay after it (s). */
  const userTurns: { stoppedSpeakingAt: number; endOfTurnDelay: number }[] = []
  session.on(voice.AgentSessionEventTypes.ConversationItemAdded, ({ item }) => {
    if (item.type !== 'message' || item.role !== 'user') return
    const metrics = item.metrics as { stoppedSpeakingAt?: number; endOfTurnDelay?: number } | undefined
    userTurns.push({
      stoppedSpeakingAt: metrics?.stoppedSpeakingAt ?? Number.NaN,
      endOfTurnDelay: metrics?.endOfTurnDelay ?? Number.NaN,
    })
  })
  await session.start({ agent: built.agent })
  const fixtures = await Promise.all(QUESTIONS.map((question) => speechOf(question)))

  const turns: Turn[] = []
  const speechEnds: number[] = []
  // One more turn than measured: the first pays for lazy loading (the VAD's model, connections).
  for (let index = 0; index <= count; index++) {
    const fixture = fixtures[index % fixtures.length] ?? fixtures[0]
    if (!fixture) throw new Error('no fixture')
    audio.transcribe(fixture.text)
    const answer = output.nextSegment()
    const played = await input.play(fixture)
    const segment: Segment = await answer
    await new Promise<void>((resolve) => {
      const wait = () => (segment.finishedAt ? resolve() : setTimeout(wait, 20))
      wait()
    })
    speechEnds.push(played.endedAt)
    const transcription = audio.transcriptions[index]
    const synthesis = audio.syntheses[index]
    const llmRequest = llm.requestTimes[index]
    if (!transcription || !synthesis || llmRequest === undefined || vadEnds[index] === undefined)
      throw new Error(`turn ${index}: a stage is missing (the VAD or a provider did not answer)`)
    const relative = (at: number) => at - played.endedAt
    const userTurn = userTurns[index] ?? { stoppedSpeakingAt: Number.NaN, endOfTurnDelay: Number.NaN }
    turns.push({
      vadEstimate: relative(userTurn.stoppedSpeakingAt * 1000),
      committed: relative((userTurn.stoppedSpeakingAt + userTurn.endOfTurnDelay) * 1000),
      vadEnd: relative(vadEnds[index] ?? 0),
      sttRequest: relative(transcription.receivedAt),
      sttFinal: relative(transcription.answeredAt),
      llmRequest: relative(llmRequest),
      llmFirstToken: relative(llmRequest + LLM_MS),
      ttsRequest: relative(synthesis.receivedAt),
      ttsFirstByte: relative(synthesis.firstByteAt),
      firstFrame: relative(segment.firstFrameAt),
    })
  }
  await session.close().catch(() => undefined)
  await input.close()
  return turns
}

process.once('message', async (request: CallRequest) => {
  process.send?.(await runCall(request))
  await Promise.all([llm.close(), audio.close()])
  process.exit(0)
})
process.send?.({ llmBaseUrl: llm.baseUrl, audioBaseUrl: audio.baseUrl })
