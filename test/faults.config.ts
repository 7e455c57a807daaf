import { defineConfig } from 'vitest/config'

/** `npm run test:faults`: processes killed for real (SIGKILL) on a shared PostgreSQL. */
export default defineConfig({
  test: {
    include: ['server/test/faults/**/*.fault.test.ts'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
})
