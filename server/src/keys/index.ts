/** keys/: API keys (secret and widget), their checks and cache. Other areas use it through this file. */
export { authenticateApiKey } from './authenticate.ts'
export { createKeyCache, type KeyCache } from './cache.ts'
export { registerKeyRoutes } from './routes.ts'
export { createApiKey, keyCreatorOf, onKeyRevoked } from './service.ts'
export { findKeyCreator } from './store.ts'
