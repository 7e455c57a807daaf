import { spawn } from 'node:child_process'
import { type Counts, runBrowserTests } from './browser/run.ts'
import { buildForBrowsers } from './build-for-browsers.ts'

/**
 * `npm test`: vitest (shared, server, widget logic) and the widget's browser tests side by side,
 * then ONE closing line counting both, `Tests: N passed, N failed, N skipped`, which CI reads. The
 * line before it gives each phase's duration. Side by side because vitest leaves about a third of
 * the two cores idle (its files wait on their servers, Chromium and the worker's processes) and the
 * browser phase fits there; the widget and the studio are built once first, so neither phase
 * rebuilds files the other's servers are serving (PARLEY_TEST_BUILT tells vitest's global set-up).
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
buildForBrowsers()
process.env.PARLEY_TEST_BUILT = '1'
let vitestTime = ''
let browserTime = ''
const vitestPhase = runVitest().then((counts) => {
  vitestTime = seconds(runStarted)
  process.stdout.write(`\nvitest phase: ${vitestTime}\n`)
  return counts
})
const browserPhase = (async (): Promise<Counts> => {
  try {
    // BROWSER_TEST_FILES (a glob from the root) narrows this phase to the files it names.
    const counts = await runBrowserTests(process.env.BROWSER_TEST_FILES || undefined)
    process.stdout.write(
      `\nwidget browser tests (@web/test-runner, Chromium): ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`,
    )
    return counts
  } catch (error) {
    process.stdout.write(
      `\nbrowser tests could not run: ${error instanceof Error ? error.message : String(error)}\n`,
    )
    return { passed: 0, failed: 1, skipped: 0 }
  } finally {
    browserTime = seconds(runStarted)
  }
})()
const [unit, browser] = await Promise.all([vitestPhase, browserPhase])
process.stdout.write(
  `\nphases: vitest ${vitestTime}, browser ${browserTime} (side by side, each from the start), total ${seconds(runStarted)}\n`,
)
const total = {
  passed: unit.passed + browser.passed,
  failed: unit.failed + browser.failed,
  skipped: unit.skipped + browser.skipped,
}
process.stdout.write(`\nTests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`)
process.exit(total.failed > 0 ? 1 : 0)
