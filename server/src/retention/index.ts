/** retention/: how long an organization keeps its conversations, calls and exports, and the daily sweep. */
export { registerRetentionRoutes } from './routes.ts'
export { RETENTION_JOB, registerRetentionJob, scheduleRetentionJob } from './service.ts'
