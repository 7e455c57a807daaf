import { type Config, ConfigError, loadConfig } from './config.ts'
import { createLogger } from './http/logger.ts'
import { assertPortFree } from './port-check.ts'
import type { RunningServer } from './server.ts'
import type { AgentWorkerProcess } from './voice/index.ts'

/**
 * The server and the voice area load once the configuration is known to be good and the port
 * free: a bad variable or a busy port stops the process before they do (under tsx, loading them
 * costs a small machine seconds of CPU).
 */
const loadVoice = () => import('./voice/index.ts')
type Voice = Awaited<ReturnType<typeof loadVoice>>

/** Why this process runs no voice agent worker, or null when it runs one (ROLE=all). */
const agentWorkerAbsence = (config: Config, { isAgentWorkerBuilt }: Voice): string | null => {
  if (!config.livekit) return 'Voice         off: set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET'
  if (!config.workerToken)
    return 'Voice agent   off: set WORKER_TOKEN (32+ characters) for the worker to run calls'
  if (config.role !== 'all')
    return `Voice agent   not in this process (ROLE=${config.role}); run one with ROLE=agent`
  if (!isAgentWorkerBuilt()) return 'Voice agent   not built: run npm run build -w @parley/agent'
  return null
}

/**
 * The worker's environment: this one (it reads its own variables), and the API's address when this
 * process serves it. Passed through, not read: config.ts stays the only reader of process.env.
 */
const agentWorkerEnvironment = (apiUrl: string | null): NodeJS.ProcessEnv =>
  apiUrl ? { PARLEY_API_URL: apiUrl, ...process.env } : process.env

const printWelcome = (config: Config, running: RunningServer, voice: Voice) => {
  const lines = ['', `  Parley is running at ${running.url}`, '']
  const demo = running.demo?.tenant
  if (demo) {
    lines.push(
      `  Demo page     ${running.url}/demo/`,
      `  Studio        ${running.url}/studio/   (sign in as the owner below, or create an account)`,
      `  API docs      ${running.url}/docs`,
      `  Owner login   ${demo.ownerEmail}  /  ${demo.ownerPassword}`,
      `  Widget key    ${demo.widgetKey}`,
      `  Demo agents   text ${demo.textAgentId}, pipeline ${demo.pipelineAgentId}`,
    )
  } else {
    lines.push(`  Studio        ${running.url}/studio/`, `  API docs      ${running.url}/docs`)
  }
  if (config.generatedSecrets.includes('ADMIN_TOKEN')) lines.push(`  Admin token   ${config.adminToken}`)
  const agentLine = `Voice agent   ${config.livekit?.agentName} on ${config.livekit?.url}, in its own process`
  lines.push(`  ${agentWorkerAbsence(config, voice) ?? agentLine}`)
  lines.push(
    '',
    `  Next: open the demo page, or try  npm run admin -- orgs`,
    `  Data lives in ${config.dataDir}; stop with Ctrl+C.`,
    '',
  )
  process.stdout.write(`${lines.join('\n')}\n`)
}

/** ROLE=agent: only the voice agent worker, in a child process, restarted after a crash. */
const runAgentOnly = (config: Config, voice: Voice) => {
  const problem = agentWorkerAbsence({ ...config, role: 'all' }, voice)
  if (problem) throw new ConfigError(problem.replace(/\s{2,}/g, ' '))
  const worker = voice.superviseAgentWorker({
    env: agentWorkerEnvironment(null),
    logger: createLogger(config),
    onGiveUp: () => process.exit(1),
  })
  const shutdown = () => worker.stop().then(() => process.exit(0))
  process.once('SIGTERM', shutdown)
  process.once('SIGINT', shutdown)
}

const main = async () => {
  const config = loadConfig()
  if (config.role === 'agent') return runAgentOnly(config, await loadVoice())
  if (config.role !== 'worker') await assertPortFree(config.port)
  const [{ start }, voice] = await Promise.all([import('./server.ts'), loadVoice()])
  const running = await start({ config, seedDemo: !config.isProduction })
  const agentWorker: AgentWorkerProcess | null = agentWorkerAbsence(config, voice)
    ? null
    : voice.superviseAgentWorker({ env: agentWorkerEnvironment(running.url), logger: running.ctx.logger })
  if (config.role !== 'worker') printWelcome(config, running, voice)
  const shutdown = (signal: string) => {
    running.ctx.logger.info({ signal }, 'shutting down')
    // The worker drains first: its calls in progress still post transcripts to this API.
    Promise.resolve(agentWorker?.stop())
      .then(() => running.stop())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      )
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'))
  process.once('SIGINT', () => shutdown('SIGINT'))
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`)
  } else {
    process.stderr.write(`Parley failed to start: ${(error as Error).stack ?? String(error)}\n`)
  }
  process.exit(1)
})
