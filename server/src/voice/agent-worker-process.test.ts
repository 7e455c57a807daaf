import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { AGENT_CONFIG_EXIT_CODE, superviseAgentWorker } from './agent-worker-process.ts'

const dir = mkdtempSync(join(tmpdir(), 'parley-agent-process-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A stand-in worker: records each run, crashes its first `crashes` runs, drains on SIGTERM. */
const script = join(dir, 'worker.mjs')
writeFileSync(
  script,
  `import { appendFileSync, readFileSync } from 'node:fs'
const file = process.env.RUNS_FILE
appendFileSync(file, 'run\\n')
if (process.env.EXIT_CODE) process.exit(Number(process.env.EXIT_CODE))
const runs = readFileSync(file, 'utf8').split('\\n').filter((line) => line === 'run').length
if (runs <= Number(process.env.CRASHES)) process.exit(1)
process.on('SIGTERM', () => { appendFileSync(file, 'drained\\n'); process.exit(0) })
appendFileSync(file, 'up\\n')
setInterval(() => {}, 60_000)
`,
)

const linesOf = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean)

const logger = () => ({ info: vi.fn(), error: vi.fn() })

describe('superviseAgentWorker', () => {
  it('starts the worker again after each crash, with back-off, and drains it on stop', async () => {
    const runsFile = join(dir, 'crashing.txt')
    writeFileSync(runsFile, '')
    const log = logger()
    const worker = superviseAgentWorker({
      env: { ...process.env, RUNS_FILE: runsFile, CRASHES: '2' },
      logger: log,
      script,
      restartBaseMs: 10,
    })
    await vi.waitFor(() => expect(linesOf(runsFile)).toEqual(['run', 'run', 'run', 'up']), {
      timeout: 15_000,
    })
    const delays = log.error.mock.calls.map(([fields]) => (fields as { restartInMs: number }).restartInMs)
    expect(delays).toEqual([10, 20])

    await worker.stop()
    expect(linesOf(runsFile).at(-1)).toBe('drained')
  })

  it('does not restart a worker that refused its configuration', async () => {
    const runsFile = join(dir, 'refused.txt')
    writeFileSync(runsFile, '')
    const gaveUp = vi.fn()
    superviseAgentWorker({
      env: { ...process.env, RUNS_FILE: runsFile, EXIT_CODE: String(AGENT_CONFIG_EXIT_CODE) },
      logger: logger(),
      script,
      restartBaseMs: 10,
      onGiveUp: gaveUp,
    })
    await vi.waitFor(() => expect(gaveUp).toHaveBeenCalledOnce(), { timeout: 15_000 })
    expect(linesOf(runsFile)).toEqual(['run'])
  })
})
