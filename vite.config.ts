import { existsSync, mkdirSync } from 'node:fs'
import { defineConfig } from 'vitest/config'

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
 * were busy 1.2 of 2 on average; a third keeps them fed. The server's files run
 * without per-file isolation: each worker imports the server's modules once instead of once per file
 * (the server keeps its state per AppContext, so files do not see each other's), which took the
 * import phase from a third of the run to a tenth. Everything else keeps a fresh module graph per
 * file: the widget's tests put `window` and `document` on globalThis, and the agent's framework
 * keeps process-wide state.
 */
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 3,
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'server',
          include: ['server/**/*.test.ts', 'platform/**/*.test.ts', 'client/test/**/*.test.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: [
            'shared/**/*.test.ts',
            'widget/src/**/*.test.ts',
            'agent/**/*.test.ts',
            'studio/test/**/*.test.ts',
          ],
        },
      },
    ],
  },
})
