import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['shared/**/*.test.ts', 'server/**/*.test.ts', 'widget/src/**/*.test.ts', 'agent/**/*.test.ts'],
    pool: 'forks',
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/summary-reporter.ts'],
  },
})
