import type { Reporter, TestModule } from 'vitest/node'

/** A run of at least this many files prints its slowest ones: where the suite's time goes. */
const SLOWEST_FROM_FILES = 20
const SLOWEST_SHOWN = 15

const slowestFiles = (testModules: ReadonlyArray<TestModule>) => {
  const timed = testModules
    .map((module) => {
      const { collectDuration, setupDuration, duration } = module.diagnostic()
      return { file: module.relativeModuleId, ms: collectDuration + setupDuration + duration }
    })
    .sort((a, b) => b.ms - a.ms)
  const total = timed.reduce((sum, { ms }) => sum + ms, 0)
  const lines = timed
    .slice(0, SLOWEST_SHOWN)
    .map(({ file, ms }) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`)
  return `\nslowest test files (import + hooks + tests; ${(total / 1000).toFixed(0)} s over ${timed.length} files):\n${lines.join('\n')}\n`
}

/**
 * Ends every run with one plain line, `Tests: N passed, N failed, N skipped`, that any CI can read
 * whatever it knows about vitest's own summary. A whole-suite run first lists its slowest files.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>) {
    const counts = { passed: 0, failed: 0, skipped: 0 }
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === 'passed') counts.passed++
        else if (state === 'failed') counts.failed++
        else counts.skipped++
      }
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) counts.failed++
    }
    counts.failed += unhandledErrors.length
    if (testModules.length >= SLOWEST_FROM_FILES) process.stdout.write(slowestFiles(testModules))
    process.stdout.write(
      `\nTests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`,
    )
  }
}
