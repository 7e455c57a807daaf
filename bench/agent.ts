import { type ChildProcess, fork, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { readdirSync, readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { CANDIDATE_ENV, CANDIDATE_FLAGS, JOB_PROCESS_FLAGS } from '../agent/src/job-flags.ts'
import { startFakeLiveKitAgents } from '../agent/test/helpers/fake-livekit-agents.ts'
import { start } from '../server/src/server.ts'
import { startFakeLiveKit } from '../server/test/helpers/fake-livekit.ts'
import { startFakeLlm } from '../server/test/helpers/fake-llm.ts'
import type { CallsReport, CallsRequest } from './agent-calls.ts'
import { benchConfig } from './bench-config.ts'
import { callJson, prepareBatchTenant } from './bench-tenant.ts'
import { percentile } from './stats.ts'

/**
 * `npm run bench -- agent`: what the voice agent worker costs. (a) The idle worker as it runs in
 * production (the bundle, plain node) against a server speaking LiveKit's agent protocol: the
 * memory of its main process, inference process and warm job processes, and the time from a
 * dispatch to the job joining the room. (b) Calls in the framework's text mode in one process
 * (the real session, the real OpenAI plugin against the fake LLM, a real Parley server): the time
 * from the dispatch metadata to the greeting's first token, and the memory a call adds. (c) From
 * those, how many concurrent pipeline calls a 4 GiB machine holds (providers remote).
 */

const IDLE = Number(process.env.BENCH_IDLE ?? 2)
const CALLS = Number(process.env.BENCH_CALLS ?? 10)
const TURNS = Number(process.env.BENCH_TURNS ?? 3)
const MACHINE_MIB = 4096
/** The kernel, sshd and the like on a small VM; the API runs elsewhere. */
const SYSTEM_RESERVE_MIB = 400

const mib = (value: number) => `${value.toFixed(0)} MiB`
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')

/**
 * A process's memory from /proc/<pid>/smaps_rollup, in MiB. PSS counts each shared page as its
 * share among the processes that map it; USS (Private_Clean + Private_Dirty) is what the process
 * alone holds: what one more job process adds once many run (their shared pages, the node binary
 * and native libraries, then split many ways).
 */
type ProcessMemory = { pid: number; kind: string; rss: number; pss: number; uss: number }

const memoryOf = (pid: number): Omit<ProcessMemory, 'kind'> => {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
  const field = (name: string) =>
    Number(rollup.match(new RegExp(`^${name}:\\s+(\\d+)`, 'm'))?.[1] ?? 0) / 1024
  return { pid, rss: field('Rss'), pss: field('Pss'), uss: field('Private_Clean') + field('Private_Dirty') }
}

const childrenOf = (pid: number): number[] =>
  readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
  )

const kindOf = (pid: number) => {
  const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
  if (command.includes('inference_proc')) return 'inference process'
  if (command.includes('job_proc')) return 'job process'
  return 'other'
}

const workerTree = (pid: number): ProcessMemory[] => [
  { ...memoryOf(pid), kind: 'worker (main)' },
  ...childrenOf(pid).map((child) => ({ ...memoryOf(child), kind: kindOf(child) })),
]

/** Waits until `count` job processes exist and the tree's memory has settled (two equal readings). */
const settledTree = async (pid: number, count: number) => {
  let previous = -1
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const tree = workerTree(pid)
    const total = Math.round(tree.reduce((sum, process) => sum + process.pss, 0))
    const jobs = tree.filter((process) => process.kind === 'job process').length
    if (jobs >= count && Math.abs(total - previous) <= 2) return tree
    previous = total
  }
}

const printTree = (tree: ProcessMemory[]) => {
  for (const process of tree)
    console.log(
      `    ${process.kind.padEnd(18)} pid ${String(process.pid).padEnd(7)} PSS ${mib(process.pss).padStart(8)}  USS ${mib(process.uss).padStart(8)}  RSS ${mib(process.rss)}`,
    )
  console.log(`    total              PSS ${mib(tree.reduce((sum, process) => sum + process.pss, 0))}`)
}

export const run = async () => {
  await import('../agent/build.ts')
  const llm = await startFakeLlm()
  const livekitApi = await startFakeLiveKit()
  const workerToken = randomBytes(32).toString('hex')
  const { config, removeDataDir } = benchConfig({
    ...livekitApi.env,
    WORKER_TOKEN: workerToken,
    LLM_BASE_URL: llm.baseUrl,
    LLM_API_KEY: 'sk-bench',
    // The agent's STT and TTS providers need keys for the setup to resolve; text mode never calls them.
    DEEPGRAM_API_KEY: 'dg-bench',
    CARTESIA_API_KEY: 'ca-bench',
    // The calls are all opened before the first is taken: none may time out waiting for its agent.
    AGENT_JOIN_TIMEOUT_SECONDS: '3600',
  })
  const server = await start({ config })
  const children: ChildProcess[] = []
  try {
    const tenant = await prepareBatchTenant(server, { adminToken: config.adminToken, label: 'Agent bench' })
    await callJson(`${server.url}/v1/agents/${tenant.agentId}`, {
      method: 'PATCH',
      token: tenant.key,
      json: { greetingType: 'agentFirst', greetingMessage: null },
    })
    const startCall = async () => {
      const session = (await callJson(`${server.url}/v1/chat/voice-sessions`, {
        method: 'POST',
        headers: { 'x-api-key': tenant.key },
        json: { agent_id: tenant.agentId },
      })) as { room_name: string }
      const dispatch = livekitApi
        .callsTo('AgentDispatchService/CreateDispatch')
        .find((call) => call.body.room === session.room_name)
      const metadata = String(dispatch?.body.metadata)
      return {
        callId: (JSON.parse(metadata) as { callId: string }).callId,
        metadata,
        roomName: session.room_name,
      }
    }

    // (a) The idle worker, and one dispatch through it.
    const livekit = await startFakeLiveKitAgents()
    const worker = spawn(
      process.execPath,
      [fileURLToPath(new URL('../agent/dist/main.js', import.meta.url))],
      {
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'production',
          LOG_LEVEL: 'error',
          LIVEKIT_URL: livekit.url,
          LIVEKIT_API_KEY: livekit.apiKey,
          LIVEKIT_API_SECRET: livekit.apiSecret,
          WORKER_TOKEN: workerToken,
          PARLEY_API_URL: server.url,
          AGENT_HTTP_PORT: '0',
          AGENT_IDLE_PROCESSES: String(IDLE),
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    )
    children.push(worker)
    await livekit.registered()
    const idle = await settledTree(worker.pid as number, IDLE)
    const mainPss = idle.find((process) => process.kind === 'worker (main)')?.pss ?? 0
    const inferencePss = idle.find((process) => process.kind === 'inference process')?.pss ?? 0
    const idleJobs = idle.filter((process) => process.kind === 'job process')
    const idleJobPss = idleJobs.reduce((sum, process) => sum + process.pss, 0) / Math.max(idleJobs.length, 1)
    const idleJobUss = idleJobs.reduce((sum, process) => sum + process.uss, 0) / Math.max(idleJobs.length, 1)
    console.log(
      `(a) idle worker, ${IDLE} warm job processes (PSS: each process's share of the memory it maps), load ${load()}:`,
    )
    printTree(idle)

    const call = await startCall()
    const release = livekit.holdRoomJoins()
    const dispatched = performance.now()
    await livekit.dispatch({ metadata: call.metadata, roomName: call.roomName })
    while (!livekit.roomJoins.some((join) => join.room === call.roomName)) {
      if (performance.now() - dispatched > 60_000)
        throw new Error('the job did not join the room within 60 s')
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    console.log(
      `    dispatch → the job joins the room (availability, assignment, metadata, setup read, session built): ${(performance.now() - dispatched).toFixed(0)} ms`,
    )
    // The job process that took the call: its session built, the plugins its call names loaded
    // (providers.ts), waiting for the caller. A warm process took it, so it is the largest of them.
    // Read once its memory has settled (two readings a second apart within 2 MiB, 20 s at most).
    const warmPids = new Set(idleJobs.map((process) => process.pid))
    const takenNow = () =>
      workerTree(worker.pid as number)
        .filter((process) => warmPids.has(process.pid))
        .sort((a, b) => b.pss - a.pss)[0]
    let taken = takenNow()
    for (let second = 0; second < 20; second++) {
      await new Promise((resolve) => setTimeout(resolve, 1000))
      const next = takenNow()
      const settled = taken && next && Math.abs(next.pss - taken.pss) <= 2
      taken = next
      if (settled) break
    }
    const callProcessPss = Math.max(taken?.pss ?? 0, idleJobPss)
    const callProcessUss = Math.max(taken?.uss ?? 0, idleJobUss)
    console.log(
      `    the job process holding that call (session built, its plugins loaded): PSS ${mib(callProcessPss)}  USS ${mib(callProcessUss)}`,
    )
    release()
    const stopped = once(worker, 'exit')
    worker.kill('SIGTERM')
    await stopped
    await livekit.close()

    // (b) Calls in text mode, in one process: with the flags job processes get (job-flags.ts), and
    // with the lighter candidate settings measured against them (memory and CPU in one run).
    const runCalls = async (execArgv: readonly string[], env: Record<string, string>) => {
      const calls = []
      for (let index = 0; index <= CALLS; index++) calls.push(await startCall())
      const child = fork(fileURLToPath(new URL('./agent-calls.ts', import.meta.url)), {
        execArgv: ['--import', 'tsx', '--expose-gc', ...execArgv],
        env: { ...process.env, ...env },
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      })
      children.push(child)
      await once(child, 'message')
      const request: CallsRequest = { apiUrl: server.url, workerToken, calls, turns: TURNS, vadSeconds: 20 }
      child.send(request)
      const [report] = (await once(child, 'message')) as [CallsReport]
      return report
    }
    const settings = [
      { label: `used: ${JOB_PROCESS_FLAGS.join(' ')}`, execArgv: JOB_PROCESS_FLAGS, env: {} },
      {
        label: `candidate: ${CANDIDATE_FLAGS.join(' ')} MALLOC_ARENA_MAX=${CANDIDATE_ENV.MALLOC_ARENA_MAX}`,
        execArgv: CANDIDATE_FLAGS,
        env: CANDIDATE_ENV,
      },
    ]
    console.log(
      `(b) ${CALLS} calls in text mode, each greeted and then ${TURNS} turns, all kept open; load ${load()}:`,
    )
    const measured = []
    for (const setting of settings) {
      const report = await runCalls(setting.execArgv, setting.env)
      const pssPerCall = (report.pssAfterAllMiB - report.pssAfterFirstMiB) / CALLS
      const heapPerCall = (report.heapAfterAllMiB - report.heapAfterFirstMiB) / CALLS
      const turnUs = percentile(report.cpuPerTurnUs, 50)
      const startUs = percentile(report.cpuPerCallStartUs, 50)
      measured.push({ pssPerCall, heapPerCall, turnUs, vad: report.vadCorePerStream, startUs })
      console.log(`  ${setting.label}`)
      console.log(
        `    metadata → greeting's first token: p50 ${percentile(report.firstTokenMs, 50).toFixed(0)} ms, p99 ${percentile(report.firstTokenMs, 99).toFixed(0)} ms (greeting complete p50 ${percentile(report.greetingDoneMs, 50).toFixed(0)} ms)`,
      )
      console.log(
        `    memory a call adds to its process (live, after a collection): JS heap ${(heapPerCall * 1024).toFixed(0)} KiB, PSS ${pssPerCall.toFixed(1)} MiB`,
      )
      console.log(
        `    CPU (user + system) per call: start ${(startUs / 1000).toFixed(1)} ms (setup, session, greeting), per turn p50 ${(turnUs / 1000).toFixed(2)} ms p99 ${(percentile(report.cpuPerTurnUs, 99) / 1000).toFixed(2)} ms (text mode); VAD ${(report.vadCorePerStream * 100).toFixed(1)} % of a core per live audio stream`,
      )
    }
    const [used, candidate] = measured as [(typeof measured)[0], (typeof measured)[0]]
    console.log(
      `  candidate / used: CPU per turn ${(candidate.turnUs / used.turnUs).toFixed(2)}×, per call start ${(candidate.startUs / used.startUs).toFixed(2)}×, VAD ${(candidate.vad / used.vad).toFixed(2)}×`,
    )
    // A call-minute: the caller's audio through the VAD for 60 s, and a turn every 10 s or so.
    const cpuPerMinute = used.vad * 60 + (used.turnUs / 1e6) * 6
    console.log(
      `    CPU per call-minute (VAD on 60 s of audio + 6 turns, text side; STT/TTS are remote): ${cpuPerMinute.toFixed(2)} CPU-s, so a core holds about ${Math.floor(60 / cpuPerMinute)} calls`,
    )
    // The larger of the two: PSS moves in pages and with the allocator's free lists, the heap is exact.
    const perCall = Math.max(used.pssPerCall, used.heapPerCall)

    // (c) A 4 GiB machine running only the worker.
    const fixed = SYSTEM_RESERVE_MIB + mainPss + inferencePss + IDLE * idleJobPss
    const holdsBy = (process: number) => Math.floor((MACHINE_MIB - fixed) / (process + perCall))
    console.log(
      `(c) a ${MACHINE_MIB} MiB machine, ${SYSTEM_RESERVE_MIB} MiB kept for the system; load ${load()}:`,
    )
    console.log(
      `    fixed ${mib(fixed - SYSTEM_RESERVE_MIB)} (worker ${mib(mainPss)}, inference ${mib(inferencePss)}, ${IDLE} warm × ${mib(idleJobPss)}); a call ${mib(callProcessPss + perCall)} (its process holding a call ${mib(callProcessPss)} PSS + ${perCall.toFixed(1)} MiB live per call)`,
    )
    console.log(
      `    holds ${holdsBy(callProcessPss)} concurrent pipeline calls by memory, a call's process at its PSS (target ≥ 60; counted from a warm process, as this bench did before: ${holdsBy(idleJobPss)})`,
    )
    // With dozens of job processes their shared pages (node, the native libraries) are split so
    // many ways that a process costs about its private memory: the same machine counted so.
    console.log(
      `    holds ${holdsBy(callProcessUss)} counting a call's process at its USS (${mib(callProcessUss)}, private pages only: what each further process adds once many share the rest)`,
    )
  } finally {
    // SIGTERM: the worker takes its job processes down with it.
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM')
    await server.stop()
    await livekitApi.close()
    await llm.close()
    removeDataDir()
  }
}
