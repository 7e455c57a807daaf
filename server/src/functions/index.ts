/** functions/: other areas use it through this file. */
export { registerFunctionRoutes } from './routes.ts'
export { invocableOf, listEnabledFunctions } from './service.ts'
