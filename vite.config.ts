import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['shared/**/*.test.ts', 'server/**/*.test.ts', 'widget/src/**/*.test.ts', 'agent/**/*.test.ts'],
    // The fault suite kills processes on PostgreSQL: `npm run test:faults`, not `npm test`.
    exclude: ['**/node_modules/**', 'server/test/faults/**'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/summary-reporter.ts'],
  },
})
