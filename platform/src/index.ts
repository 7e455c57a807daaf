/**
 * @parley/platform: what both the server and the voice agent worker run, so neither imports the
 * other. Configuration parsing (the environment's variables, the model providers, one-line
 * ConfigErrors), the guarded outbound fetch, the function invoker, placeholder filling, the
 * web_search built-in and the transfer tools' names. Nothing here knows an area of the server.
 */
export * from './agent-worker.ts'
export * from './built-in-catalogue.ts'
export * from './config-environment.ts'
export * from './config-parse.ts'
export * from './config-providers.ts'
export * from './functions/invoker.ts'
export * from './functions/parameters.ts'
export * from './outbound/outbound.ts'
export * from './outbound/outbound-address.ts'
export * from './outbound/outbound-error.ts'
export * from './placeholders.ts'
export * from './transfer-tools.ts'
export * from './web-search.ts'
