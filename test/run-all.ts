import { spawn } from 'node:child_process'
import { type Counts, runBrowserTests } from './browser/run.ts'

/**
 * `npm test`: vitest (shared, server, widget logic), then the widget's browser tests, then ONE
 * closing line counting both, `Tests: N passed, N failed, N skipped`, which CI reads. The line
 * before it gives each phase's duration.
 */
const runVitest = () =>
  new Promise<Counts>((resolve) => {
    const child = spawn('npx', ['vitest', 'run'], { stdio: ['ignore', 'pipe', 'inherit'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk)
      output += chunk.toString()
    })
    child.on('close', (code) => {
      // The summary reporter's line; without it (vitest crashed) the run counts as one failure.
      const match = [...output.matchAll(/Tests: (\d+) passed, (\d+) failed, (\d+) skipped/g)].at(-1)
      const counts = match
        ? { passed: Number(match[1]), failed: Number(match[2]), skipped: Number(match[3]) }
        : { passed: 0, failed: 1, skipped: 0 }
      resolve(code !== 0 && counts.failed === 0 ? { ...counts, failed: 1 } : counts)
    })
  })

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`

const runStarted = performance.now()
const unit = await runVitest()
const vitestTime = seconds(runStarted)
process.stdout.write(`\nvitest phase: ${vitestTime}\n`)
let browser: Counts
const browserStarted = performance.now()
try {
  process.stdout.write('\nwidget browser tests (@web/test-runner, Chromium)\n')
  browser = await runBrowserTests()
  process.stdout.write(
    `browser: ${browser.passed} passed, ${browser.failed} failed, ${browser.skipped} skipped\n`,
  )
} catch (error) {
  process.stdout.write(
    `browser tests could not run: ${error instanceof Error ? error.message : String(error)}\n`,
  )
  browser = { passed: 0, failed: 1, skipped: 0 }
}
process.stdout.write(
  `\nphases: vitest ${vitestTime}, browser ${seconds(browserStarted)}, total ${seconds(runStarted)}\n`,
)
const total = {
  passed: unit.passed + browser.passed,
  failed: unit.failed + browser.failed,
  skipped: unit.skipped + browser.skipped,
}
process.stdout.write(`\nTests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`)
process.exit(total.failed > 0 ? 1 : 0)
