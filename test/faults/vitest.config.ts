import { defineConfig } from 'vitest/config'

/**
 * `npm run test:faults`: the fault-injection suite, apart from `npm test` (it kills real server
 * processes and waits for their death to be noticed). It needs PostgreSQL and Redis
 * (TEST_DATABASE_URL, TEST_REDIS_URL): processes that die and restart share nothing else.
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.faults.ts'],
    pool: 'forks',
    maxWorkers: 1,
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/summary-reporter.ts'],
  },
})
