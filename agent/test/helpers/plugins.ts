import { loadProviders } from '../../src/providers.ts'

/**
 * A job imports only the plugins its call names (`loadProvidersFor` in providers.ts) before it
 * builds the call; the suites that build sessions directly import this module for all of them.
 */
await loadProviders()
