/** jobs/: other areas use it through this file. */
export { registerJobHandlers } from './handlers.ts'
export { createJobs, type Jobs } from './scheduler.ts'
