import { log, type VAD, voice } from '@livekit/agents'
import type { DispatchMetadata } from '@parley/shared'
import { readDispatch } from '../../src/dispatch.ts'
import { loadProvidersFor } from '../../src/providers.ts'
import { buildCallSession } from '../../src/session.ts'
import type { WorkerApi } from '../../src/worker-api.ts'
import type { Parley } from '../helpers/parley.ts'
import { PacedAudioInput, RecordingAudioOutput } from './audio-io.ts'

/**
 * The catalogue entries whose plugins speak OpenAI's audio endpoints (the fake answers them), and
 * a model on the LLM_BASE_URL route (the suite's fake LLM answers it).
 */
export const AUDIO_AGENT = {
  agentArchitecture: 'pipeline',
  model: 'llama-3.3-70b-versatile',
  stt: 'whisper-1',
  tts: 'openai-tts-1',
  voiceId: 'openai-alloy',
} as const

/**
 * A call with sound: the agent's real session builder (buildCallSession) and the framework's real
 * AgentSession, with the caller's microphone (PacedAudioInput) and loudspeaker
 * (RecordingAudioOutput) as its audio input and output instead of a LiveKit room. Everything
 * between is production code: the VAD, turn-taking, the STT, LLM and TTS plugins over HTTP.
 */
export const audioCalls = ({
  parley,
  api,
  vad,
  allowHosts = [],
}: {
  parley: Parley
  api: WorkerApi
  vad: VAD
  allowHosts?: readonly string[]
}) => {
  const open: { session: voice.AgentSession; input: PacedAudioInput }[] = []

  const start = async (
    agentId: string,
    adjust = (metadata: DispatchMetadata) => metadata,
    continues?: { conversation_id: string; session_token: string },
  ) => {
    const call = await parley.startCall(agentId, continues)
    const dispatch = readDispatch(call.metadata)
    if (!dispatch.ok) throw new Error(`the server's metadata was refused: ${dispatch.problem}`)
    const setup = await api.setup(call.callId)
    await loadProvidersFor(setup)
    const shutdowns: string[] = []
    const built = buildCallSession({
      metadata: adjust(dispatch.metadata),
      setup,
      services: { api, allowHosts, vad, shutdown: (reason) => shutdowns.push(reason), logger: log() },
    })
    const input = new PacedAudioInput()
    const output = new RecordingAudioOutput()
    built.session.input.audio = input
    built.session.output.audio = output
    open.push({ session: built.session, input })
    const items: voice.ConversationItemAddedEvent['item'][] = []
    built.session.on(voice.AgentSessionEventTypes.ConversationItemAdded, ({ item }) => items.push(item))
    await built.session.start({ agent: built.agent })
    const transcript = async () =>
      (await parley.readCall(call.callId)).transcript.map(({ role, content }) => [role, content])
    return { ...call, ...built, setup, input, output, items, shutdowns, transcript }
  }

  return {
    start,
    /** Closes every call's session and microphone. */
    closeAll: async () => {
      for (const { session, input } of open.splice(0)) {
        await session.close().catch(() => undefined)
        await input.close()
      }
    },
  }
}

export type AudioCall = Awaited<ReturnType<ReturnType<typeof audioCalls>['start']>>
