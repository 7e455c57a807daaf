import { defineConfig } from 'vitest/config'

/**
 * Two cores: two workers at once (vitest's default on two cores is one). The server's files run
 * without per-file isolation: each worker imports the server's modules once instead of once per file
 * (the server keeps its state per AppContext, so files do not see each other's), which took the
 * import phase from a third of the run to a tenth. Everything else keeps a fresh module graph per
 * file: the widget's tests put `window` and `document` on globalThis, and the agent's framework
 * keeps process-wide state.
 */
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
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
