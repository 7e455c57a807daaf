import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { join, resolve } from 'node:path'
import { ZCatalogue } from '@parley/shared'
import { z } from 'zod'

/** A configuration problem, reported as one line that names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

const roles = ['api', 'worker', 'all'] as const
const environments = ['development', 'test', 'production'] as const
const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional()

const urlWithSchemes = (schemes: string[]) =>
  optionalText.refine(
    (value) => {
      if (value === undefined) return true
      try {
        return schemes.includes(new URL(value).protocol.replace(/:$/, ''))
      } catch {
        return false
      }
    },
    { message: `must be a URL starting with ${schemes.map((s) => `${s}://`).join(' or ')}` },
  )

const isCatalogueFile = (path: string) => {
  try {
    return ZCatalogue.safeParse(JSON.parse(readFileSync(path, 'utf8'))).success
  } catch {
    return false
  }
}

const hostname =
  /^(?:\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*)(?::\d{1,5})?$/i

const proxyNames = new Set(['loopback', 'linklocal', 'uniquelocal'])

const isProxyAddress = (entry: string) => {
  if (proxyNames.has(entry)) return true
  const [address = '', bits, ...rest] = entry.split('/')
  const version = isIP(address)
  if (version === 0 || rest.length > 0) return false
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128))
}

/**
 * Which proxies may set X-Forwarded-Proto/-For: off, a hop count (1-10), or a comma list of
 * addresses, CIDR ranges and express's names (loopback, linklocal, uniquelocal). "true" (trust
 * anyone) is refused: any client could then claim https or another address.
 */
const ZTrustProxy = z
  .string()
  .trim()
  .toLowerCase()
  .default('false')
  .transform((value): false | number | string[] | null => {
    if (value === '' || value === 'false' || value === '0') return false
    if (/^\d{1,2}$/.test(value)) return Number(value) <= 10 ? Number(value) : null
    const entries = value.split(',').map((entry) => entry.trim())
    return entries.every(isProxyAddress) ? entries : null
  })
  .refine((value) => value !== null, {
    message:
      'must be false, a hop count from 1 to 10, or a comma-separated list of addresses, CIDRs, loopback, linklocal, uniquelocal',
  })
  .transform((value) => value as false | number | string[])

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const ZModelPrice = z.object({
  inputUsdPerMillion: z.number().nonnegative(),
  outputUsdPerMillion: z.number().nonnegative(),
})
export type ModelPrice = z.infer<typeof ZModelPrice>
const ZPriceTable = z.record(z.string().min(1), ZModelPrice)

/**
 * USD per million tokens, list prices of the catalogue's models; `default` prices any model not
 * listed (a CATALOGUE_FILE may add models). LLM_PRICES entries replace these per model.
 */
export const defaultLlmPrices: Readonly<Record<string, ModelPrice>> = {
  offline: { inputUsdPerMillion: 0, outputUsdPerMillion: 0 },
  'gpt-4o-mini': { inputUsdPerMillion: 0.15, outputUsdPerMillion: 0.6 },
  'gpt-4o': { inputUsdPerMillion: 2.5, outputUsdPerMillion: 10 },
  'gpt-4.1-mini': { inputUsdPerMillion: 0.4, outputUsdPerMillion: 1.6 },
  'llama-3.3-70b-versatile': { inputUsdPerMillion: 0.59, outputUsdPerMillion: 0.79 },
  'gemini-2.0-flash': { inputUsdPerMillion: 0.1, outputUsdPerMillion: 0.4 },
  default: { inputUsdPerMillion: 2.5, outputUsdPerMillion: 10 },
}

/** The environment as the table in DESIGN.md §2 defines it; every value arrives as a string. */
const ZEnvironment = z.object({
  NODE_ENV: z
    .enum(environments, { message: `must be one of ${environments.join(', ')}` })
    .default('development'),
  PORT: z
    .string()
    .regex(/^\d{1,5}$/, 'must be an integer from 0 to 65535')
    .transform(Number)
    .refine((port) => port <= 65535, 'must be an integer from 0 to 65535')
    .default(8787),
  PUBLIC_BASE_URL: urlWithSchemes(['http', 'https']),
  DATA_DIR: z.string().trim().min(1, 'must not be empty').default('.data'),
  DATABASE_URL: urlWithSchemes(['postgres', 'postgresql']),
  REDIS_URL: urlWithSchemes(['redis', 'rediss']),
  JWT_SECRET: optionalText.refine((v) => v === undefined || v.length >= 32, 'must be at least 32 characters'),
  ADMIN_TOKEN: optionalText.refine(
    (v) => v === undefined || v.length >= 32,
    'must be at least 32 characters',
  ),
  ENCRYPTION_KEY: optionalText.refine(
    (v) => v === undefined || v.length >= 32,
    'must be at least 32 characters',
  ),
  LLM_BASE_URL: urlWithSchemes(['http', 'https']),
  LLM_API_KEY: optionalText,
  LIVEKIT_URL: urlWithSchemes(['http', 'https', 'ws', 'wss']),
  LIVEKIT_API_KEY: optionalText,
  LIVEKIT_API_SECRET: optionalText,
  LIVEKIT_AGENT_NAME: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 letters, digits, dots, dashes or underscores')
    .default('parley-agent'),
  WORKER_TOKEN: optionalText.refine(
    (v) => v === undefined || v.length >= 32,
    'must be at least 32 characters',
  ),
  MEMORY_URL: urlWithSchemes(['http', 'https']),
  SEARCH_URL: urlWithSchemes(['http', 'https']),
  SEARCH_API_KEY: optionalText,
  TRIAL_CREDITS_USD: z
    .string()
    .regex(/^\d+(\.\d{1,6})?$/, 'must be a non-negative number of US dollars with at most six decimals')
    .transform(Number)
    .refine((usd) => usd <= 10_000, 'must be at most 10000')
    .default(5),
  OUTBOUND_ALLOW_HOSTS: z
    .string()
    .default('')
    .transform((list) =>
      list
        .split(',')
        .map((host) => host.trim().toLowerCase())
        .filter(Boolean),
    )
    .refine(
      (hosts) => hosts.every((host) => hostname.test(host)),
      'must be a comma-separated list of host names',
    ),
  CATALOGUE_FILE: optionalText.refine((path) => path === undefined || isCatalogueFile(path), {
    message: 'must name a readable JSON file holding a valid catalogue (see GET /v1/catalogue)',
  }),
  TRUST_PROXY: ZTrustProxy,
  WEBHOOK_RETRY_BASE_MS: z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number of milliseconds')
    .transform(Number)
    .refine((ms) => ms >= 10, 'must be at least 10')
    .default(10_000),
  WEBHOOK_TIMEOUT_MS: z
    .string()
    .regex(/^\d{1,6}$/, 'must be a whole number of milliseconds')
    .transform(Number)
    .refine((ms) => ms >= 10, 'must be at least 10')
    .default(7000),
  CHAT_IDLE_TIMEOUT_SECONDS: z
    .string()
    .regex(/^\d{1,6}$/, 'must be a whole number of seconds')
    .transform(Number)
    .refine((seconds) => seconds >= 1, 'must be at least 1')
    .default(1800),
  CALL_CHECK_INTERVAL_SECONDS: z
    .string()
    .regex(/^\d{1,5}$/, 'must be a whole number of seconds')
    .transform(Number)
    .refine((seconds) => seconds >= 1, 'must be at least 1')
    .default(60),
  CHAT_RESUME_GRACE_MS: z
    .string()
    .regex(/^\d{1,7}$/, 'must be a whole number of milliseconds')
    .transform(Number)
    .default(10_000),
  BATCH_TICK_MS: z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number of milliseconds')
    .transform(Number)
    .refine((ms) => ms >= 10, 'must be at least 10')
    .default(1000),
  BATCH_RETRY_BASE_MS: z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number of milliseconds')
    .transform(Number)
    .refine((ms) => ms >= 10, 'must be at least 10')
    .default(120_000),
  BATCH_STALE_CLAIM_MS: z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number of milliseconds')
    .transform(Number)
    .refine((ms) => ms >= 100, 'must be at least 100')
    .default(120_000),
  CHAT_MIN_BALANCE_USD: z
    .string()
    .regex(/^\d+(\.\d{1,6})?$/, 'must be a non-negative number of US dollars with at most six decimals')
    .transform(Number)
    .default(0.01),
  LLM_PRICES: optionalText.transform((value, context) => {
    if (value === undefined) return undefined
    const parsed = ZPriceTable.safeParse(safeJson(value))
    if (parsed.success) return parsed.data
    context.addIssue({
      code: 'custom',
      message: 'must be JSON {"<model>": {"inputUsdPerMillion": n, "outputUsdPerMillion": n}, ...}',
    })
    return z.NEVER
  }),
  ROLE: z.enum(roles, { message: `must be one of ${roles.join(', ')}` }).default('all'),
  LOG_LEVEL: z.enum(logLevels, { message: `must be one of ${logLevels.join(', ')}` }).default('info'),
})

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
])

export type Config = Readonly<{
  environment: (typeof environments)[number]
  isProduction: boolean
  port: number
  /** Null when unset: the server names itself http://localhost:<bound port>. */
  publicBaseUrl: string | null
  dataDir: string
  /** Null: the embedded PGlite in DATA_DIR/pg. */
  databaseUrl: string | null
  /** Null: in-process rate limits, caches and signals. */
  redisUrl: string | null
  jwtSecret: string
  adminToken: string
  /** Derives the AES-256-GCM key that encrypts provider keys, webhook secrets and function headers at rest. */
  encryptionKey: string
  /** Which secrets were generated into DATA_DIR rather than given. */
  generatedSecrets: readonly GeneratedSecretName[]
  /** Null: the `offline` stand-in model. */
  llm: Readonly<{ baseUrl: string; apiKey: string | null }> | null
  /** Null: voice sessions answer the spec's 500 "media server" error. */
  livekit: Readonly<{ url: string; apiKey: string; apiSecret: string; agentName: string }> | null
  /** Null: the voice worker's endpoints (call transcripts) refuse every request. */
  workerToken: string | null
  memoryUrl: string | null
  /** Null: the web_search built-in is not offered (SEARCH_URL, a Tavily-compatible search endpoint). */
  search: Readonly<{ url: string; apiKey: string | null }> | null
  /** USD per million tokens by model id, with a `default` entry (LLM_PRICES overrides). */
  llmPrices: Readonly<Record<string, ModelPrice>>
  /** A chat session idle this long expires (CHAT_IDLE_TIMEOUT_SECONDS; the spec's 30 minutes). */
  chatIdleTimeoutMs: number
  /** How often running calls are swept (vanished rooms) and their credits re-checked. */
  callCheckIntervalMs: number
  /** A reply whose client left is aborted when no resume arrives within this (CHAT_RESUME_GRACE_MS). */
  chatResumeGraceMs: number
  /** Sessions and replies are refused (402) below this balance (CHAT_MIN_BALANCE_USD). */
  chatMinBalanceMicros: number
  /** How often each worker looks for batch work it was not told about (scheduled starts, retries due, lost claims). */
  batchTickMs: number
  /** A contact's retries wait base, 4×, 16×, … this (capped at an hour). */
  batchRetryBaseMs: number
  /** A dial claim this old whose worker never recorded a result is resolved by another worker. */
  batchStaleClaimMs: number
  /** Null: the built-in catalogue of models, voices and functions. */
  catalogueFile: string | null
  /** Webhook retries wait base, 4×, 16×, 64× this. */
  webhookRetryBaseMs: number
  /** One webhook attempt is given up after this (WEBHOOK_TIMEOUT_MS; the spec's 7 s). */
  webhookTimeoutMs: number
  trialCreditsMicros: number
  outboundAllowHosts: readonly string[]
  /** express's `trust proxy`: false, a hop count, or addresses/CIDRs/names. */
  trustProxy: false | number | readonly string[]
  role: (typeof roles)[number]
  logLevel: (typeof logLevels)[number]
}>

type Environment = Record<string, string | undefined>

const describeIssue = (issue: z.core.$ZodIssue, env: Environment): string => {
  const variable = String(issue.path[0] ?? 'environment')
  const raw = env[variable]
  const shown = raw === undefined || secretVariables.has(variable) ? '' : ` (got ${JSON.stringify(raw)})`
  return `${variable} ${issue.message}${shown}`
}

const fail = (message: string): never => {
  throw new ConfigError(`Invalid configuration: ${message}`)
}

const generatedSecretNames = ['JWT_SECRET', 'ADMIN_TOKEN', 'ENCRYPTION_KEY'] as const
type GeneratedSecretName = (typeof generatedSecretNames)[number]
type GeneratedSecrets = Record<GeneratedSecretName, string>

/** Dev secrets live in DATA_DIR/secrets.json (mode 0600) so they survive restarts. */
const readOrCreateSecrets = (dataDir: string): GeneratedSecrets => {
  const file = join(dataDir, 'secrets.json')
  if (existsSync(file)) {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<GeneratedSecrets>
    if (generatedSecretNames.every((name) => typeof stored[name] === 'string'))
      return stored as GeneratedSecrets
  }
  // Keep what an older DATA_DIR already has (tokens in use, data encrypted with it); add what is missing.
  const previous = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<GeneratedSecrets>)
    : {}
  const secrets: GeneratedSecrets = {
    JWT_SECRET: previous.JWT_SECRET ?? randomBytes(48).toString('base64url'),
    ADMIN_TOKEN: previous.ADMIN_TOKEN ?? randomBytes(32).toString('base64url'),
    ENCRYPTION_KEY: previous.ENCRYPTION_KEY ?? randomBytes(32).toString('base64url'),
  }
  mkdirSync(dataDir, { recursive: true })
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 })
  chmodSync(file, 0o600)
  return secrets
}

/**
 * Parses the environment once. Throws ConfigError with a one-line message naming the first bad
 * variable. Outside production, missing JWT_SECRET, ADMIN_TOKEN and ENCRYPTION_KEY are generated into DATA_DIR.
 */
export const loadConfig = (env: Environment = process.env): Config => {
  const parsed = ZEnvironment.safeParse(env)
  if (!parsed.success) return fail(describeIssue(parsed.error.issues[0] as z.core.$ZodIssue, env))
  const vars = parsed.data
  const isProduction = vars.NODE_ENV === 'production'

  const livekitParts = {
    LIVEKIT_URL: vars.LIVEKIT_URL,
    LIVEKIT_API_KEY: vars.LIVEKIT_API_KEY,
    LIVEKIT_API_SECRET: vars.LIVEKIT_API_SECRET,
  }
  const livekitGiven = Object.entries(livekitParts).filter(([, value]) => value !== undefined)
  if (livekitGiven.length > 0 && livekitGiven.length < 3) {
    const missing = Object.keys(livekitParts).find(
      (name) => livekitParts[name as keyof typeof livekitParts] === undefined,
    )
    fail(`${missing} is required when any LIVEKIT_* variable is set`)
  }
  if (vars.LLM_API_KEY !== undefined && vars.LLM_BASE_URL === undefined) {
    fail('LLM_BASE_URL is required when LLM_API_KEY is set')
  }

  if (isProduction) {
    if (vars.JWT_SECRET === undefined)
      fail('JWT_SECRET is required when NODE_ENV=production (generated secrets are refused)')
    if (vars.ADMIN_TOKEN === undefined)
      fail('ADMIN_TOKEN is required when NODE_ENV=production (generated secrets are refused)')
    if (vars.ENCRYPTION_KEY === undefined)
      fail('ENCRYPTION_KEY is required when NODE_ENV=production (generated secrets are refused)')
    if (vars.LLM_BASE_URL === undefined)
      fail('LLM_BASE_URL is required when NODE_ENV=production (the offline model is refused)')
    if (vars.OUTBOUND_ALLOW_HOSTS.length > 0) fail('OUTBOUND_ALLOW_HOSTS is refused when NODE_ENV=production')
  }

  const dataDir = resolve(vars.DATA_DIR)
  const given: Partial<GeneratedSecrets> = {
    JWT_SECRET: vars.JWT_SECRET,
    ADMIN_TOKEN: vars.ADMIN_TOKEN,
    ENCRYPTION_KEY: vars.ENCRYPTION_KEY,
  }
  const generatedSecrets = generatedSecretNames.filter((name) => given[name] === undefined)
  const generated = generatedSecrets.length > 0 ? readOrCreateSecrets(dataDir) : null
  const secretOf = (name: GeneratedSecretName) => given[name] ?? (generated as GeneratedSecrets)[name]

  return Object.freeze({
    environment: vars.NODE_ENV,
    isProduction,
    port: vars.PORT,
    publicBaseUrl: vars.PUBLIC_BASE_URL?.replace(/\/+$/, '') ?? null,
    dataDir,
    databaseUrl: vars.DATABASE_URL ?? null,
    redisUrl: vars.REDIS_URL ?? null,
    jwtSecret: secretOf('JWT_SECRET'),
    adminToken: secretOf('ADMIN_TOKEN'),
    encryptionKey: secretOf('ENCRYPTION_KEY'),
    generatedSecrets: Object.freeze(generatedSecrets),
    llm: vars.LLM_BASE_URL
      ? Object.freeze({ baseUrl: vars.LLM_BASE_URL, apiKey: vars.LLM_API_KEY ?? null })
      : null,
    livekit:
      vars.LIVEKIT_URL && vars.LIVEKIT_API_KEY && vars.LIVEKIT_API_SECRET
        ? Object.freeze({
            url: vars.LIVEKIT_URL,
            apiKey: vars.LIVEKIT_API_KEY,
            apiSecret: vars.LIVEKIT_API_SECRET,
            agentName: vars.LIVEKIT_AGENT_NAME,
          })
        : null,
    workerToken: vars.WORKER_TOKEN ?? null,
    memoryUrl: vars.MEMORY_URL ?? null,
    search: vars.SEARCH_URL
      ? Object.freeze({ url: vars.SEARCH_URL, apiKey: vars.SEARCH_API_KEY ?? null })
      : null,
    llmPrices: Object.freeze({ ...defaultLlmPrices, ...vars.LLM_PRICES }),
    chatIdleTimeoutMs: vars.CHAT_IDLE_TIMEOUT_SECONDS * 1000,
    callCheckIntervalMs: vars.CALL_CHECK_INTERVAL_SECONDS * 1000,
    chatResumeGraceMs: vars.CHAT_RESUME_GRACE_MS,
    chatMinBalanceMicros: Math.round(vars.CHAT_MIN_BALANCE_USD * 1_000_000),
    batchTickMs: vars.BATCH_TICK_MS,
    batchRetryBaseMs: vars.BATCH_RETRY_BASE_MS,
    batchStaleClaimMs: vars.BATCH_STALE_CLAIM_MS,
    catalogueFile: vars.CATALOGUE_FILE ? resolve(vars.CATALOGUE_FILE) : null,
    webhookRetryBaseMs: vars.WEBHOOK_RETRY_BASE_MS,
    webhookTimeoutMs: vars.WEBHOOK_TIMEOUT_MS,
    trialCreditsMicros: Math.round(vars.TRIAL_CREDITS_USD * 1_000_000),
    outboundAllowHosts: Object.freeze(vars.OUTBOUND_ALLOW_HOSTS),
    trustProxy: Array.isArray(vars.TRUST_PROXY) ? Object.freeze(vars.TRUST_PROXY) : vars.TRUST_PROXY,
    role: vars.ROLE,
    logLevel: vars.LOG_LEVEL,
  })
}
