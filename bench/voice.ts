import { type ChildProcess, fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { AUDIO_AGENT } from '../agent/test/audio/harness.ts'
import { start } from '../server/src/server.ts'
import { startFakeLiveKit } from '../server/test/helpers/fake-livekit.ts'
import { benchConfig } from './bench-config.ts'
import { callJson, prepareBatchTenant } from './bench-tenant.ts'
import { percentile } from './stats.ts'
import { type CallRequest, LLM_MS, STT_MS, TTS_MS, type Turn } from './voice-call.ts'

/**
 * `npm run bench -- voice`: how long a caller waits for the agent's voice. One call on the audio
 * harness (agent/test/audio), in a process of its own (bench/voice-call.ts): spoken questions
 * played at real-time pace into the framework's VAD, the real OpenAI STT and TTS plugins against a
 * fake of OpenAI's audio endpoints, the real OpenAI LLM plugin against the suite's fake LLM; a
 * real Parley server here answers the worker. For each turn, from the last sample of the caller's
 * speech to the agent's first audio frame: when the VAD saw the speech end, the STT's final
 * transcript, the LLM request and first token, the TTS request and first byte, the first frame
 * out. The framework's share is the total minus the endpointing delay it waits on purpose and the
 * fakes' fixed latencies. Then what a caller would wait with real providers.
 */

const TURNS = Number(process.env.BENCH_TURNS ?? 20)
/** The framework's default minimum endpointing delay (turnHandling.endpointing.minDelay), which the worker keeps. */
const ENDPOINTING_MS = 500

const ms = (value: number) => `${value.toFixed(0)} ms`.padStart(8)

export const run = async () => {
  const child: ChildProcess = fork(fileURLToPath(new URL('./voice-call.ts', import.meta.url)), {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  })
  const [fakes] = (await once(child, 'message')) as [{ llmBaseUrl: string; audioBaseUrl: string }]
  const livekit = await startFakeLiveKit()
  const workerToken = randomBytes(32).toString('hex')
  const { config, removeDataDir } = benchConfig({
    ...livekit.env,
    WORKER_TOKEN: workerToken,
    LLM_BASE_URL: fakes.llmBaseUrl,
    LLM_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: fakes.audioBaseUrl,
    OPENAI_API_KEY: 'sk-bench-openai',
  })
  const server = await start({ config })
  try {
    const tenant = await prepareBatchTenant(server, { adminToken: config.adminToken, label: 'Voice bench' })
    await callJson(`${server.url}/v1/agents/${tenant.agentId}`, {
      method: 'PATCH',
      token: tenant.key,
      json: { ...AUDIO_AGENT, greetingType: 'userFirst', systemPrompt: 'You help.' },
    })
    const started = (await callJson(`${server.url}/v1/chat/voice-sessions`, {
      method: 'POST',
      headers: { 'x-api-key': tenant.key },
      json: { agent_id: tenant.agentId },
    })) as { room_name: string }
    const dispatched = livekit
      .callsTo('AgentDispatchService/CreateDispatch')
      .find((call) => call.body.room === started.room_name)
    const request: CallRequest = {
      apiUrl: server.url,
      workerToken,
      metadata: String(dispatched?.body.metadata),
      turns: TURNS,
    }
    child.send(request)
    const [turns] = (await once(child, 'message')) as [Turn[]]
    const measured = turns.slice(1)
    const column = (pick: (turn: Turn) => number) => measured.map(pick)
    const row = (label: string, values: number[]) =>
      console.log(`  ${label.padEnd(44)} ${ms(percentile(values, 50))} ${ms(percentile(values, 99))}`)

    console.log(
      `\nvoice turn latency: ${measured.length} turns of one call, load average ${loadavg()[0]?.toFixed(2)}`,
    )
    console.log(
      `fakes answer after: STT ${STT_MS} ms, LLM first token ${LLM_MS} ms, TTS first byte ${TTS_MS} ms`,
    )
    console.log(
      `endpointing: the framework's minimum delay ${ENDPOINTING_MS} ms after the VAD's end of speech\n`,
    )
    console.log(
      `  ${'from the end of the caller’s speech to …'.padEnd(44)} ${'p50'.padStart(8)} ${'p99'.padStart(8)}`,
    )
    const stages: [string, (turn: Turn) => number][] = [
      ['the VAD’s estimate of where speech ended', (turn) => turn.vadEstimate],
      ['end of speech detected (VAD)', (turn) => turn.vadEnd],
      ['STT request sent', (turn) => turn.sttRequest],
      ['STT final transcript', (turn) => turn.sttFinal],
      ['turn committed (estimate + endpointing)', (turn) => turn.committed],
      ['LLM request', (turn) => turn.llmRequest],
      ['LLM first token', (turn) => turn.llmFirstToken],
      ['TTS request', (turn) => turn.ttsRequest],
      ['TTS first byte', (turn) => turn.ttsFirstByte],
      ['first audio frame out (total)', (turn) => turn.firstFrame],
    ]
    for (const [label, pick] of stages) row(label, column(pick))
    const share = column((turn) => turn.firstFrame - ENDPOINTING_MS - LLM_MS - TTS_MS)
    console.log('')
    row('framework share (total − endpointing − fakes)', share)
    const parts: [string, (turn: Turn) => number][] = [
      ['  VAD estimate after the true end', (turn) => turn.vadEstimate],
      [
        '  STT final after the endpointing window',
        (turn) => Math.max(0, turn.sttFinal - turn.vadEstimate - ENDPOINTING_MS),
      ],
      ['  turn committed → LLM request', (turn) => turn.llmRequest - turn.committed],
      ['  LLM first token → TTS request', (turn) => turn.ttsRequest - turn.llmFirstToken],
      ['  TTS first byte → first frame out', (turn) => turn.firstFrame - turn.ttsFirstByte],
    ]
    for (const [label, pick] of parts) row(label, column(pick))
    const hidden = measured.filter((turn) => turn.sttFinal <= turn.vadEstimate + ENDPOINTING_MS).length
    console.log(
      `  the STT's final came inside the endpointing window in ${hidden}/${measured.length} turns (its latency then costs nothing)`,
    )

    const frameworkP50 = percentile(share, 50)
    console.log(
      `\nwhat a caller waits with real providers (framework share p50 ${frameworkP50.toFixed(0)} ms measured above):`,
    )
    const estimates: [string, number, number, number, string][] = [
      // label, endpointing + STT on the critical path, LLM first token, TTS first byte, sources
      ['Deepgram Nova-3 + GPT-4o mini + Cartesia Sonic 2', ENDPOINTING_MS, 400, 90 + 50, 'S1 L1 T1'],
      ['Deepgram Nova-3 + GPT-4o mini + ElevenLabs Flash v2.5', ENDPOINTING_MS, 400, 75 + 50, 'S1 L1 T2'],
      [
        'OpenAI Whisper (after the VAD) + GPT-4o mini + OpenAI TTS',
        ENDPOINTING_MS + 500,
        400,
        500,
        'S2 L1 T3',
      ],
    ]
    console.log(
      `  ${'pipeline'.padEnd(58)} ${'turn end'.padStart(8)} ${'LLM'.padStart(6)} ${'TTS'.padStart(6)} ${'total'.padStart(7)}  sources`,
    )
    for (const [label, turnEnd, llmFirst, ttsFirst, sources] of estimates) {
      const total = turnEnd + llmFirst + ttsFirst + frameworkP50
      console.log(
        `  ${label.padEnd(58)} ${ms(turnEnd)} ${`${llmFirst}`.padStart(6)} ${`${ttsFirst}`.padStart(6)} ${ms(total)}  ${sources}`,
      )
    }
    console.log(`
  turn end: the framework's ${ENDPOINTING_MS} ms endpointing; a streaming STT (Deepgram) finalises inside it,
  Whisper only starts once the VAD has cut the speech, so its whole request adds on (assumed 500 ms).
  Network round trips to the providers are in the TTS figures (+50 ms assumed); LiveKit's own
  transport to the caller (WebRTC jitter buffer, SIP) comes on top and is not counted.
  S1 Deepgram endpointing (default 10 ms of silence, 300-500 ms recommended for conversation):
     https://developers.deepgram.com/docs/endpointing ; streaming finals arrive while the caller pauses.
  S2 OpenAI speech to text (a request per utterance): https://platform.openai.com/docs/guides/speech-to-text
     (no latency figure published; 500 ms assumed for a short utterance).
  L1 OpenAI publishes no time-to-first-token figure for GPT-4o mini: 400 ms is an assumption.
  T1 Cartesia Sonic 2, "90ms model latency": https://docs.cartesia.ai/2024-11-13/build-with-cartesia/models
  T2 ElevenLabs Flash v2.5, "~75ms": https://elevenlabs.io/docs/overview/models
  T3 OpenAI TTS (the whole clip before the first frame: the plugin is not streaming):
     https://platform.openai.com/docs/guides/text-to-speech (no figure published; 500 ms assumed).`)
  } finally {
    child.kill()
    await server.stop()
    await livekit.close()
    removeDataDir()
  }
}
