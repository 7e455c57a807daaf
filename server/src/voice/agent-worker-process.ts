import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { AGENT_CONFIG_EXIT_CODE } from '@parley/platform'
import type { Logger } from 'pino'

/** The voice agent worker as `npm run build` bundles it (agent/build.ts). */
export const AGENT_WORKER_SCRIPT = fileURLToPath(new URL('../../../agent/dist/main.js', import.meta.url))

export { AGENT_CONFIG_EXIT_CODE }

export type AgentWorkerProcess = {
  /** Ends with the worker: SIGTERM, which drains calls in progress, then its exit. */
  stop: () => Promise<void>
}

export const isAgentWorkerBuilt = (script = AGENT_WORKER_SCRIPT) => existsSync(script)

/**
 * Runs the voice agent worker in a process of its own, so a crash of the worker (or of a native
 * media library in it) never takes the API down, and starts it again after a crash with back-off:
 * `restartBaseMs`, doubling to at most a minute, and back to `restartBaseMs` once a run lasted a
 * minute. A worker that stops on its configuration is not restarted. Plain node runs it, without
 * this process's TypeScript loader, which every call's job process would otherwise inherit.
 */
export const superviseAgentWorker = ({
  env,
  logger,
  script = AGENT_WORKER_SCRIPT,
  restartBaseMs = 1000,
  onGiveUp = () => {},
}: {
  env: NodeJS.ProcessEnv
  logger: Pick<Logger, 'info' | 'error'>
  script?: string
  restartBaseMs?: number
  /** The worker refused its configuration (it printed why). */
  onGiveUp?: () => void
}): AgentWorkerProcess => {
  let child: ChildProcess | undefined
  let restart: NodeJS.Timeout | undefined
  let stopping = false
  let crashes = 0

  const run = () => {
    const startedAt = Date.now()
    const current = spawn(process.execPath, [script], { env, stdio: ['ignore', 'inherit', 'inherit'] })
    child = current
    current.once('exit', (code, signal) => {
      child = undefined
      if (stopping) return
      if (code === AGENT_CONFIG_EXIT_CODE) {
        logger.error('the voice agent worker refused its configuration; it is not restarted')
        onGiveUp()
        return
      }
      crashes = Date.now() - startedAt >= 60_000 ? 1 : crashes + 1
      const delayMs = Math.min(restartBaseMs * 2 ** (crashes - 1), 60_000)
      logger.error(
        { code, signal, restartInMs: delayMs },
        'the voice agent worker stopped; starting it again',
      )
      restart = setTimeout(run, delayMs)
    })
  }
  run()

  return {
    stop: async () => {
      stopping = true
      clearTimeout(restart)
      const running = child
      if (!running || running.exitCode !== null) return
      const exited = once(running, 'exit')
      running.kill('SIGTERM')
      await exited
    },
  }
}
