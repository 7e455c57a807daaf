/**
 * orgs/: organizations, their members and invitations, studio sessions, identity secrets and the
 * organizations' provider keys. Other areas use it through this file.
 */
export { isUserHashValid } from './identity-secret.ts'
export { hashPassword } from './passwords.ts'
export { listProviderKeys, providersWithKeys, readProviderKeys, updateProviderKeys } from './provider-keys.ts'
export { registerOrganizationRoutes } from './routes.ts'
export {
  authenticateStudioToken,
  findOrganization,
  isEmailRegistered,
  listOrganizations,
  roleIn,
  signup,
  updateOrganizationLimits,
} from './service.ts'
export type { OrganizationRow } from './store.ts'
export { v1RateLimitOf } from './v1-rate-limit.ts'
