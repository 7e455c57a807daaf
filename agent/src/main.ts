import { setTimeout } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { AgentServer, initializeLogger, log, ServerOptions } from '@livekit/agents'
import { AGENT_CONFIG_EXIT_CODE, ConfigError } from '@parley/platform'
import { type AgentConfig, loadAgentConfig } from './config.ts'
import { readDispatch } from './dispatch.ts'
import { applyJobProcessSettings } from './job-flags.ts'
import {
  createWorkerMetrics,
  freeLoopbackPort,
  serveWorkerHttp,
  type WorkerMetrics,
} from './worker-metrics.ts'

/**
 * `npm run agent` (and `ROLE=agent npm start`, and the child `ROLE=all` starts): the voice agent
 * worker. It registers with LiveKit under LIVEKIT_AGENT_NAME for explicit dispatch, keeps
 * AGENT_IDLE_PROCESSES job processes warm, runs each call in one of them (entry.ts), and reports
 * its load so LiveKit sends calls elsewhere when it is full.
 */

/** main.ts runs bundled (`npm run build -w @parley/agent`), as dist/main.js beside dist/entry.js. */
const ENTRY = fileURLToPath(new URL('./entry.js', import.meta.url))
const CLOSE_WAIT_MS = 2000

const serverOptions = (
  config: AgentConfig,
  { metrics, healthPort }: { metrics: WorkerMetrics; healthPort: number },
) => {
  const options = new ServerOptions({
    agent: ENTRY,
    agentName: config.agentName,
    // Every call is taken (a bad one is ended by its job); the room shows the agent's own name.
    requestFunc: async (request) => {
      const dispatch = readDispatch(request.job.metadata)
      metrics.jobAccepted(request.job.id)
      await request.accept(dispatch.ok ? dispatch.metadata.agent.name : '')
    },
    wsURL: config.livekit.url,
    apiKey: config.livekit.apiKey,
    apiSecret: config.livekit.apiSecret,
    // The framework's health server listens on loopback behind ours (worker-metrics.ts), which
    // answers /metrics on AGENT_HTTP_PORT and hands it every other path.
    host: '127.0.0.1',
    port: healthPort,
    numIdleProcesses: config.idleProcesses,
    loadThreshold: config.loadThreshold,
    // A job process imports the framework and every plugin (2-4 s here, 10+ s on a loaded 2-core
    // machine, over the default 10 s time-out).
    initializeProcessTimeout: 30_000,
    // How long a call's process gets to acknowledge a shutdown (LiveKit terminating the job, the
    // worker closing) and finish it: last words said, transcript flushed. The framework's 60 s
    // also held up every close while a job process was still starting (it never acknowledges).
    shutdownProcessTimeout: 10_000,
    // The framework gives up after 10 failed connections (2 s, 4 s, … 10 s apart); a worker
    // whose LiveKit is away keeps trying every 10 s until it is back.
    maxRetry: Number.POSITIVE_INFINITY,
    logLevel: config.logLevel,
    // `production` only picks defaults, and every one is given above; set, it would also turn
    // port 0 into 8081 and 0 idle processes into min(cpus, 4).
    production: false,
  })
  // The framework's CPU measure (cgroup-aware), and the calls: each runs in a process of its own
  // (about 100 MiB), so a machine can fill by memory before its CPU shows it (`npm run bench -- agent`).
  const cpuLoad = options.loadFunc
  options.loadFunc = async (server) =>
    Math.max(await cpuLoad(server), server.activeJobs.length / config.maxCalls)
  return options
}

const main = async () => {
  const config = loadAgentConfig()
  applyJobProcessSettings()
  initializeLogger({ pretty: !config.isProduction, level: config.logLevel })
  const logger = log()
  // Declared before the server: its activeJobs are read at scrape time.
  let server: AgentServer | undefined
  const metrics = createWorkerMetrics({ activeJobs: () => server?.activeJobs.length ?? 0 })
  const healthPort = await freeLoopbackPort()
  const http = await serveWorkerHttp({
    metrics,
    port: config.httpPort,
    healthPort,
    token: config.metricsToken,
  })
  logger.info({ port: http.port }, 'health and metrics endpoint listening')
  server = new AgentServer(serverOptions(config, { metrics, healthPort }))
  const running = server
  // Voice agents' test runs: cases claimed from the server and run here in text mode (no room).
  const { createTestRunApi, startTestRunner } = await import('./test-runner.ts')
  const { inference } = await import('@livekit/agents')
  const testRunner = startTestRunner({
    api: createTestRunApi({ apiUrl: config.apiUrl, workerToken: config.workerToken }),
    vad: new inference.VAD(),
    logger,
    allowHosts: config.outboundAllowHosts,
  })

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'stopping now, calls in progress are cut')
      process.exit(1)
    }
    stopping = true
    logger.info(
      { signal, calls: running.activeJobs.length },
      'draining: no new calls, waiting for calls in progress',
    )
    await Promise.all([
      running.drain().catch((error: unknown) => logger.error({ error: String(error) }, 'drain failed')),
      testRunner.stop(),
    ])
    // The calls are over. close() also waits out the framework's pause between connection attempts
    // (up to 10 s when LiveKit is away) and a job process still starting (which never answers a
    // shutdown): neither holds anything worth waiting for.
    await Promise.race([running.close(), setTimeout(CLOSE_WAIT_MS)])
    await http.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))

  logger.info(
    { agentName: config.agentName, livekit: config.livekit.url, api: config.apiUrl },
    'voice agent worker starting',
  )
  await running.run()
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`)
    process.exit(AGENT_CONFIG_EXIT_CODE)
  }
  process.stderr.write(`The voice agent worker stopped: ${(error as Error).stack ?? String(error)}\n`)
  process.exit(1)
})
