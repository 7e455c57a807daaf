import type { z } from 'zod'
import { providerKeyVariables } from './config-providers.ts'

/** A configuration problem, reported as one line that names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

const secretVariables = new Set([
  'JWT_SECRET',
  'ADMIN_TOKEN',
  'ENCRYPTION_KEY',
  'LLM_API_KEY',
  'LIVEKIT_API_SECRET',
  'WORKER_TOKEN',
  'DATABASE_URL',
  'REDIS_URL',
  'SEARCH_API_KEY',
  'EMBEDDINGS_API_KEY',
  ...providerKeyVariables,
])

export type Environment = Record<string, string | undefined>

const describeIssue = (issue: z.core.$ZodIssue, env: Environment): string => {
  const variable = String(issue.path[0] ?? 'environment')
  const raw = env[variable]
  const shown = raw === undefined || secretVariables.has(variable) ? '' : ` (got ${JSON.stringify(raw)})`
  return `${variable} ${issue.message}${shown}`
}

/** Stops start-up with one line: `Invalid configuration: <message>`. */
export const failConfig = (message: string): never => {
  throw new ConfigError(`Invalid configuration: ${message}`)
}

/** Parses `env` with `schema`; a bad value throws ConfigError naming the first bad variable. */
export const parseEnvironment = <Schema extends z.ZodType>(
  schema: Schema,
  env: Environment,
): z.output<Schema> => {
  const parsed = schema.safeParse(env)
  if (!parsed.success) return failConfig(describeIssue(parsed.error.issues[0] as z.core.$ZodIssue, env))
  return parsed.data
}
