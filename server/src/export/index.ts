/** export/: other areas use it through this file. */
export { registerExportRoutes } from './routes.ts'
export { registerExportJobs, startExportRecovery } from './service.ts'
