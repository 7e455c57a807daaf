import { existsSync, mkdirSync } from 'node:fs'
import { configDefaults, defineConfig } from 'vitest/config'
import SlowFirst from './test/sequencer.ts'

/**
 * Where the machine has a RAM disk, temporary files go there: every test server copies the
 * migrated database template (41 MB) into a data directory of its own, which on a virtual disk
 * took 0.6 s of system time per server; in memory it takes 0.09 s. Workers inherit TMPDIR.
 */
const RAM_DISK = '/dev/shm'
if (!process.env.TMPDIR && existsSync(RAM_DISK)) {
  process.env.TMPDIR = `${RAM_DISK}/parley-tests`
  mkdirSync(process.env.TMPDIR, { recursive: true })
}

/**
 * Three workers on two cores (vitest's default there is one): a file spends most of its time
 * waiting (on its servers, Chromium, the voice worker's processes), and with two workers the cores
 * were busy 1.2 of 2 on average; a third keeps them fed.
 *
 * Files that run in Node without a DOM share one module graph per worker (`isolate: false`): each
 * worker imports the server, the voice agent's framework and its plugins once instead of once per
 * file. The server keeps its state per AppContext and the agent's per call session, so files do
 * not see each other's. The studio's browser files are among them (they start the server; the
 * pages run in Chromium). Isolated: the widget's tests, which put `window` and `document` on
 * globalThis; the studio's pure ones, which read the CSS global where a browser has it; and the
 * two that turn tracing on, which is one tracer provider per process (the server's and the
 * worker's): a second file in that process would export to the first one's closed receiver.
 */
const ISOLATED = [
  'studio/test/i18n.test.ts',
  'studio/test/tryit-snippet.test.ts',
  'server/src/tracing/tracing.test.ts',
  'agent/src/telemetry.test.ts',
]

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 3,
    // Slow files first where vitest has no durations from an earlier run (test/sequencer.ts).
    sequence: { sequencer: SlowFirst },
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: [
            'server/**/*.test.ts',
            'platform/**/*.test.ts',
            'client/test/**/*.test.ts',
            'agent/**/*.test.ts',
            'studio/test/**/*.test.ts',
          ],
          exclude: [...configDefaults.exclude, ...ISOLATED],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ['shared/**/*.test.ts', 'widget/src/**/*.test.ts', ...ISOLATED],
        },
      },
    ],
  },
})
