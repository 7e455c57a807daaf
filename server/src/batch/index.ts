/**
 * batch/: campaigns of outbound calls (jobs, contacts, schedule, calling windows, progress,
 * control) and the dialer that works through them, asking calls/ to open and dispatch each call.
 * Other areas use it through this file.
 */
export { registerBatchControlRoutes } from './control-routes.ts'
export { registerBatchJobs } from './dialer/jobs.ts'
export { type Dialer, startDialer } from './dialer/worker.ts'
export { registerBatchRoutes } from './routes.ts'
