import { readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { ZCatalogue } from '@parley/shared'
import { z } from 'zod'
import { builtInCatalogue } from './built-in-catalogue.ts'

// The environment's schema: what each variable may hold. config.ts reads process.env through it.

export const roles = ['api', 'worker', 'agent', 'all'] as const
export const environments = ['development', 'test', 'production'] as const
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

export const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional()

export const urlWithSchemes = (schemes: string[]) =>
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

/** A secret given in the environment: unset, or long enough to resist guessing. */
const longSecret = optionalText.refine(
  (value) => value === undefined || value.length >= 32,
  'must be at least 32 characters',
)

/** A whole number of `unit` written with at most `digits` digits, at least `min` when given. */
export const wholeNumber = (digits: number, unit: string, min?: number) => {
  const number = z
    .string()
    .regex(new RegExp(`^\\d{1,${digits}}$`), `must be a whole number of ${unit}`)
    .transform(Number)
  return min === undefined ? number : number.refine((value) => value >= min, `must be at least ${min}`)
}

/** US dollars with at most six decimals (micro-USD exact). */
const usdAmount = z
  .string()
  .regex(/^\d+(\.\d{1,6})?$/, 'must be a non-negative number of US dollars with at most six decimals')
  .transform(Number)

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

export const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export const ZModelPrice = z.object({
  inputUsdPerMillion: z.number().nonnegative(),
  outputUsdPerMillion: z.number().nonnegative(),
})
export type ModelPrice = z.infer<typeof ZModelPrice>
const ZPriceTable = z.record(z.string().min(1), ZModelPrice)

/**
 * USD per million tokens: the built-in catalogue's list prices, and `default` for any model not
 * priced there (a CATALOGUE_FILE may add models). LLM_PRICES entries replace these per model.
 */
export const defaultLlmPrices: Readonly<Record<string, ModelPrice>> = {
  ...Object.fromEntries(
    builtInCatalogue.models.flatMap((model) => (model.price ? [[model.id, model.price]] : [])),
  ),
  default: { inputUsdPerMillion: 2.5, outputUsdPerMillion: 10 },
}

/** The environment as the table in DESIGN.md §2 defines it; every value arrives as a string. */
export const ZEnvironment = z.object({
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
  /** `1` lets NODE_ENV=production run on the embedded PGlite (one process, DATA_DIR on disk). */
  ALLOW_EMBEDDED_DATABASE: z
    .enum(['0', '1'], { message: 'must be 0 or 1' })
    .default('0')
    .transform((flag) => flag === '1'),
  REDIS_URL: urlWithSchemes(['redis', 'rediss']),
  JWT_SECRET: longSecret,
  ADMIN_TOKEN: longSecret,
  ENCRYPTION_KEY: longSecret,
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
  WORKER_TOKEN: longSecret,
  /** Set: GET /metrics wants it as a bearer token. */
  METRICS_TOKEN: longSecret,
  /** `0` turns metrics off: no /metrics, no per-request measuring (the bench compares both). */
  METRICS_ENABLED: z
    .enum(['0', '1'], { message: 'must be 0 or 1' })
    .default('1')
    .transform((flag) => flag === '1'),
  /** Set: traces go there over OTLP/HTTP (`…/v1/traces`); unset, no tracing code is even loaded. */
  OTEL_EXPORTER_OTLP_ENDPOINT: urlWithSchemes(['http', 'https']),
  OTEL_SERVICE_NAME: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 letters, digits, dots, dashes or underscores')
    .optional(),
  MEMORY_URL: urlWithSchemes(['http', 'https']),
  SEARCH_URL: urlWithSchemes(['http', 'https']),
  SEARCH_API_KEY: optionalText,
  TRIAL_CREDITS_USD: usdAmount.refine((usd) => usd <= 10_000, 'must be at most 10000').default(5),
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
  WEBHOOK_RETRY_BASE_MS: wholeNumber(9, 'milliseconds', 10).default(10_000),
  WEBHOOK_TIMEOUT_MS: wholeNumber(6, 'milliseconds', 10).default(7000),
  CHAT_IDLE_TIMEOUT_SECONDS: wholeNumber(6, 'seconds', 1).default(1800),
  CALL_CHECK_INTERVAL_SECONDS: wholeNumber(5, 'seconds', 1).default(60),
  AGENT_JOIN_TIMEOUT_SECONDS: wholeNumber(4, 'seconds', 1).default(15),
  CALL_END_GRACE_SECONDS: wholeNumber(3, 'seconds').default(10),
  CHAT_RESUME_GRACE_MS: wholeNumber(7, 'milliseconds').default(10_000),
  CHAT_PLAN_CACHE_ENTRIES: wholeNumber(7, 'entries').default(10_000),
  BATCH_TICK_MS: wholeNumber(9, 'milliseconds', 10).default(1000),
  BATCH_RETRY_BASE_MS: wholeNumber(9, 'milliseconds', 10).default(120_000),
  BATCH_STALE_CLAIM_MS: wholeNumber(9, 'milliseconds', 100).default(120_000),
  /** An export with more records than this is refused up front (POST /api/export). */
  EXPORT_MAX_ROWS: wholeNumber(9, 'rows', 1).default(2_000_000),
  /** How often a streaming reply's text so far is stored (a crash loses at most this much). */
  CHAT_CHECKPOINT_MS: wholeNumber(6, 'milliseconds', 50).default(1000),
  /** A client has this long to send a request's headers (slow-loris bound). */
  HTTP_HEADERS_TIMEOUT_MS: wholeNumber(7, 'milliseconds', 100).default(20_000),
  /** ...and this long to send the whole request, body included (a 10 MiB CSV on a slow line). */
  HTTP_REQUEST_TIMEOUT_MS: wholeNumber(8, 'milliseconds', 100).default(600_000),
  /** An idle keep-alive connection is closed after this (above a load balancer's usual 60 s). */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: wholeNumber(7, 'milliseconds', 100).default(65_000),
  /** How often an instance says it is alive; silent for three beats, its work is taken over. */
  INSTANCE_HEARTBEAT_MS: wholeNumber(6, 'milliseconds', 50).default(2000),
  CHAT_MIN_BALANCE_USD: usdAmount.default(0.01),
  /** The completion cap sent with every chat reply's model round (and analysis): the hold's worst case. */
  CHAT_MAX_REPLY_TOKENS: wholeNumber(6, 'tokens', 16).default(1024),
  /** Open event streams (chat replies, resumes, batch progress) one API key may hold at once. */
  STREAMS_PER_KEY: wholeNumber(7, 'streams', 1).default(100),
  /** Open event streams one organization may hold at once, across its keys and studio sessions. */
  STREAMS_PER_ORGANIZATION: wholeNumber(7, 'streams', 1).default(1000),
  /** An invitation not accepted within this many days expires. */
  INVITATION_TTL_DAYS: wholeNumber(3, 'days', 1).default(7),
  SIGNIN_ATTEMPTS_PER_ACCOUNT: wholeNumber(6, 'attempts', 1).default(10),
  SIGNIN_ATTEMPTS_PER_ADDRESS: wholeNumber(6, 'attempts', 1).default(50),
  SIGNUPS_PER_ADDRESS: wholeNumber(6, 'sign-ups', 1).default(5),
  KEY_FAILURES_PER_ADDRESS: wholeNumber(6, 'failures', 1).default(30),
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
  PROBE_LOG_SAMPLE: wholeNumber(6, 'probes', 1).default(100),
})
