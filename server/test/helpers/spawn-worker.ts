import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TestServer } from './test-server.ts'

const script = resolve(fileURLToPath(new URL('.', import.meta.url)), 'worker-process.ts')

export type WorkerProcess = {
  child: ChildProcess
  /** Where it serves HTTP (a ROLE=worker process listens nowhere: its URL is unused). */
  url: string
  kill: () => Promise<void>
}

/**
 * Starts `node --import tsx worker-process.ts` as ROLE=worker on the server's database and Redis,
 * with `env` added; resolves once it prints `ready`. kill() sends SIGKILL and waits for the exit.
 */
export const spawnWorker = async (
  server: TestServer,
  env: Record<string, string>,
): Promise<WorkerProcess> => {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: {
      ...process.env,
      ...server.env,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'parley-worker-')),
      ROLE: 'worker',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()))
  let errors = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString()
  })
  const url = await new Promise<string>((resolveReady, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      const ready = chunk.toString().match(/ready (\S+)/)
      if (ready?.[1]) resolveReady(ready[1])
    })
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before ready: ${errors}`)))
  })
  return {
    child,
    url,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    },
  }
}
