import { readFileSync } from 'node:fs'
import { inference, initializeLogger, log, voice } from '@livekit/agents'
import { AudioFrame } from '@livekit/rtc-node'
import { readDispatch } from '../agent/src/dispatch.ts'
import { loadProvidersFor } from '../agent/src/providers.ts'
import { buildCallSession } from '../agent/src/session.ts'
import { createWorkerApi } from '../agent/src/worker-api.ts'

/**
 * A job process's work, many calls at once, for bench/agent.ts (forked, IPC): each call is read
 * from its dispatch metadata and its setup from the server, started in text mode, greeted (the
 * model makes the greeting up) and talked to for a few turns, and kept open. Answers the time to
 * the greeting's first token and the memory the sessions add; then how much CPU the VAD costs.
 */

export type CallsRequest = {
  apiUrl: string
  workerToken: string
  calls: { callId: string; metadata: string }[]
  turns: number
  vadSeconds: number
}

export type CallsReport = {
  firstTokenMs: number[]
  greetingDoneMs: number[]
  /** After the first call (the process, the framework and one session) and after all: PSS and live JS heap. */
  pssAfterFirstMiB: number
  pssAfterAllMiB: number
  heapAfterFirstMiB: number
  heapAfterAllMiB: number
  vadCorePerStream: number
  /** CPU time (user + system) of this process per turn, calls after the first: µs each. */
  cpuPerTurnUs: number[]
  /** The same for a call's start: setup read, session built and started, greeting spoken. */
  cpuPerCallStartUs: number[]
}

initializeLogger({ pretty: false, level: 'fatal' })

/** Live memory only: a collection first (the child runs with --expose-gc), then PSS and the JS heap. */
const liveMemory = () => {
  ;(globalThis as { gc?: () => void }).gc?.()
  return { pss: pssMiB(), heap: process.memoryUsage().heapUsed / 1024 / 1024 }
}

export const pssMiB = (pid: number | 'self' = 'self') => {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
  return Number(rollup.match(/^Pss:\s+(\d+)/m)?.[1] ?? 0) / 1024
}

/** A text sink on the session's transcription output: notes when the first token arrives. */
const firstTokenSink = (onFirst: () => void) => {
  let seen = false
  return {
    captureText: async () => {
      if (!seen) onFirst()
      seen = true
    },
    flush: () => {},
    onAttached: () => {},
    onDetached: () => {},
  }
}

const runCall = async (
  { apiUrl, workerToken }: CallsRequest,
  { callId, metadata }: CallsRequest['calls'][number],
) => {
  const api = createWorkerApi({ apiUrl, workerToken })
  const started = performance.now()
  const dispatch = readDispatch(metadata)
  if (!dispatch.ok) throw new Error(`metadata refused: ${dispatch.problem}`)
  const setup = await api.setup(callId)
  await loadProvidersFor(setup)
  const { session, agent } = buildCallSession({
    metadata: dispatch.metadata,
    setup,
    services: { api, allowHosts: [], vad: new inference.VAD(), shutdown: () => {}, logger: log() },
  })
  let firstToken = 0
  const greeted = new Promise<number>((resolve) => {
    session.on(voice.AgentSessionEventTypes.ConversationItemAdded, ({ item }) => {
      if (item.type === 'message' && item.role === 'assistant') resolve(performance.now() - started)
    })
  })
  session.output.transcription = firstTokenSink(() => {
    firstToken = performance.now() - started
  }) as unknown as typeof session.output.transcription
  await session.start({ agent })
  const greetingDone = await greeted
  return { session, firstToken, greetingDone }
}

/**
 * The share of a core one live caller's VAD costs: speech-like audio fed in real time (100 ms of
 * 10 ms frames every 100 ms) for `seconds`, CPU time used divided by the time it took.
 */
const measureVad = async (seconds: number) => {
  const sampleRate = 16_000
  const frameSamples = sampleRate / 100
  const stream = new inference.VAD().stream()
  void (async () => {
    for await (const _event of stream);
  })()
  const frameAt = (frame: number) => {
    const data = new Int16Array(frameSamples)
    // Half a second of a voiced tone with noise, half a second of near silence: turns of speech.
    const voiced = Math.floor(frame / 50) % 2 === 0
    for (let i = 0; i < frameSamples; i++) {
      const t = (frame * frameSamples + i) / sampleRate
      data[i] = voiced
        ? Math.round(8000 * Math.sin(2 * Math.PI * 180 * t) + 2000 * (Math.random() - 0.5))
        : Math.round(50 * (Math.random() - 0.5))
    }
    return new AudioFrame(data, sampleRate, 1, frameSamples)
  }
  // A second of audio made beforehand and played in a loop: the measure is the VAD's work only.
  const second = Array.from({ length: 100 }, (_, frame) => frameAt(frame))
  const cpuBefore = process.cpuUsage()
  const started = performance.now()
  for (let frame = 0; frame < seconds * 100; frame++) {
    stream.pushFrame(second[frame % 100] as AudioFrame)
    if (frame % 10 === 9)
      await new Promise((resolve) => setTimeout(resolve, started + (frame + 1) * 10 - performance.now()))
  }
  const used = process.cpuUsage(cpuBefore)
  const elapsed = (performance.now() - started) / 1000
  stream.close()
  return (used.user + used.system) / 1_000_000 / elapsed
}

process.once('message', async (request: CallsRequest) => {
  const sessions: voice.AgentSession[] = []
  const firstTokenMs: number[] = []
  const greetingDoneMs: number[] = []
  const cpuPerTurnUs: number[] = []
  const cpuPerCallStartUs: number[] = []
  const cpuUs = () => {
    const { user, system } = process.cpuUsage()
    return user + system
  }
  let afterFirst = { pss: 0, heap: 0 }
  for (const [index, call] of request.calls.entries()) {
    const startCpu = cpuUs()
    const { session, firstToken, greetingDone } = await runCall(request, call)
    if (index > 0) cpuPerCallStartUs.push(cpuUs() - startCpu)
    sessions.push(session)
    for (let turn = 0; turn < request.turns; turn++) {
      const turnCpu = cpuUs()
      await session.run({ userInput: `Question ${turn}?` }).wait()
      if (index > 0) cpuPerTurnUs.push(cpuUs() - turnCpu)
    }
    if (index === 0) {
      // The first call pays for lazy loading; the others show a call's own cost.
      afterFirst = liveMemory()
    } else {
      firstTokenMs.push(firstToken)
      greetingDoneMs.push(greetingDone)
    }
  }
  const afterAll = liveMemory()
  const vadCorePerStream = await measureVad(request.vadSeconds)
  const report: CallsReport = {
    firstTokenMs,
    greetingDoneMs,
    pssAfterFirstMiB: afterFirst.pss,
    pssAfterAllMiB: afterAll.pss,
    heapAfterFirstMiB: afterFirst.heap,
    heapAfterAllMiB: afterAll.heap,
    vadCorePerStream,
    cpuPerTurnUs,
    cpuPerCallStartUs,
  }
  process.send?.(report)
  await Promise.all(sessions.map((session) => session.close()))
  process.exit(0)
})
process.send?.('ready')
