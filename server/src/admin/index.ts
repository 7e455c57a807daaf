/** admin/: other areas use it through this file. */
export { registerAdminRoutes } from './routes.ts'
