/**
 * do-not-call/: an organization's do-not-call list (its API, imports, opt_out) and the checks
 * other areas make before they dial. Other areas use it through this file; the store is private.
 */
export { registerDoNotCallRoutes } from './routes.ts'
export { doNotCallRefusal, isListed, listedAmong, optOut } from './service.ts'
