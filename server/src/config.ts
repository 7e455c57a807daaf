import { resolve } from 'node:path'
import {
  defaultLlmPrices,
  type Environment,
  type ExtraModel,
  type environments,
  failConfig,
  type logLevels,
  type ModelPrice,
  type ProviderSettings,
  parseEnvironment,
  readProviders,
  type roles,
  ZEnvironment,
  ZProvidersFileVariable,
  ZProviderVariables,
} from '@parley/platform'
import {
  embeddingRouteOf,
  type KnowledgeConfig,
  toKnowledgeConfig,
  ZKnowledgeVariables,
} from './config-knowledge.ts'
import {
  type GeneratedSecretName,
  type GeneratedSecrets,
  generatedSecretNames,
  readOrCreateSecrets,
} from './config-secrets.ts'

export { ConfigError, type Environment, failConfig, parseEnvironment } from '@parley/platform'

/** The whole environment: the general variables and the model providers'. */
const ZFullEnvironment = ZEnvironment.extend(ZProviderVariables.shape)
  .extend(ZKnowledgeVariables.shape)
  .extend({
    PROVIDERS_FILE: ZProvidersFileVariable,
  })

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
  /**
   * Null: the `offline` stand-in model. Else the development shortcut: an OpenAI-compatible
   * endpoint serving the models of every provider the operator did not configure.
   */
  llm: Readonly<{ baseUrl: string; apiKey: string | null }> | null
  /** The model providers by id (built-in and PROVIDERS_FILE's); see providers/registry.ts. */
  providers: Readonly<Record<string, ProviderSettings>>
  /** The models PROVIDERS_FILE adds to the catalogue. */
  providerModels: readonly ExtraModel[]
  /** Null: voice sessions answer the spec's 500 "media server" error. */
  livekit: Readonly<{ url: string; apiKey: string; apiSecret: string; agentName: string }> | null
  /** Null: the voice worker's endpoints (call transcripts) refuse every request. */
  workerToken: string | null
  /** Prometheus metrics at GET /metrics (METRICS_ENABLED), behind METRICS_TOKEN when set. */
  metrics: Readonly<{ isEnabled: boolean; token: string | null }>
  /** OpenTelemetry traces over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT); null: off, the SDK never loaded. */
  tracing: Readonly<{ endpoint: string; serviceName: string }> | null
  memoryUrl: string | null
  /** Null: the web_search built-in is not offered (SEARCH_URL, a Tavily-compatible search endpoint). */
  search: Readonly<{ url: string; apiKey: string | null }> | null
  /** USD per million tokens by model id, with a `default` entry (PROVIDERS_FILE adds, LLM_PRICES overrides). */
  llmPrices: Readonly<Record<string, ModelPrice>>
  /** A chat session idle this long expires (CHAT_IDLE_TIMEOUT_SECONDS; the spec's 30 minutes). */
  chatIdleTimeoutMs: number
  /** How often running calls are swept (vanished rooms) and their credits re-checked. */
  callCheckIntervalMs: number
  /** A call no agent worker took within this ends `agent_unavailable`, unbilled (AGENT_JOIN_TIMEOUT_SECONDS). */
  agentJoinTimeoutSeconds: number
  /**
   * A phone call a LiveKit webhook closed waits this long at most for its agent worker's end
   * before its `ended` event and `call.ended` go out (CALL_END_GRACE_SECONDS; 0: never waits).
   */
  callEndGraceSeconds: number
  /** A reply whose client left is aborted when no resume arrives within this (CHAT_RESUME_GRACE_MS). */
  chatResumeGraceMs: number
  /**
   * Conversations whose next reply this instance can start before its claim is read, from what
   * the last reply left (CHAT_PLAN_CACHE_ENTRIES; 0 turns it off).
   */
  chatPlanCacheEntries: number
  /** Sessions and replies are refused (402) below this balance (CHAT_MIN_BALANCE_USD). */
  chatMinBalanceMicros: number
  /**
   * The completion cap of every chat model round (CHAT_MAX_REPLY_TOKENS): sent to the model, so a
   * round's worst case (its counted prompt plus this many output tokens) is what its hold covers.
   */
  chatMaxReplyTokens: number
  /** Open event streams per API key and per organization, across instances with Redis. */
  streamLimits: Readonly<{ perKey: number; perOrganization: number }>
  /** An invitation not accepted within this expires (INVITATION_TTL_DAYS). */
  invitationTtlMs: number
  /** How often each worker looks for batch work it was not told about (scheduled starts, retries due, lost claims). */
  batchTickMs: number
  /** A contact's retries wait base, 4×, 16×, … this (capped at an hour). */
  batchRetryBaseMs: number
  /** A dial claim this old whose worker never recorded a result is resolved by another worker. */
  batchStaleClaimMs: number
  /** How often a streaming reply's text is stored as a partial message (CHAT_CHECKPOINT_MS). */
  chatCheckpointMs: number
  /** How often an instance beats (INSTANCE_HEARTBEAT_MS); three missed beats and it is dead. */
  instanceHeartbeatMs: number
  /** Exports of more records are refused when asked for (EXPORT_MAX_ROWS). */
  exportMaxRows: number
  /**
   * The HTTP server's time-outs: for a request's headers, for the whole request (receiving it,
   * not answering it, so streams are not cut), for an idle keep-alive connection.
   */
  httpTimeouts: Readonly<{ headersMs: number; requestMs: number; keepAliveMs: number }>
  /** Null: the built-in catalogue of models, voices and functions. */
  catalogueFile: string | null
  /** Webhook retries wait base, 4×, 16×, 64× this. */
  webhookRetryBaseMs: number
  /** One webhook attempt is given up after this (WEBHOOK_TIMEOUT_MS; the spec's 7 s). */
  webhookTimeoutMs: number
  trialCreditsMicros: number
  /** Guessing limits (see guessLimits in http/rate-limit.ts for their windows). */
  guessLimits: Readonly<{
    signInPerAccount: number
    signInPerAddress: number
    signUpPerAddress: number
    keyFailuresPerAddress: number
  }>
  outboundAllowHosts: readonly string[]
  /** Knowledge sources: quotas, fetching and parsing limits, the embedding model (config-knowledge.ts). */
  knowledge: KnowledgeConfig
  /** express's `trust proxy`: false, a hop count, or addresses/CIDRs/names. */
  trustProxy: false | number | readonly string[]
  role: (typeof roles)[number]
  logLevel: (typeof logLevels)[number]
  /** One /healthz or /readyz access line in this many (slow and failed ones always). */
  probeLogSample: number
}>

/**
 * Parses the environment once. Throws ConfigError with a one-line message naming the first bad
 * variable (in production, every missing or refused one). Outside production, missing JWT_SECRET, ADMIN_TOKEN and ENCRYPTION_KEY are generated into DATA_DIR.
 */
export const loadConfig = (env: Environment = process.env): Config => {
  const vars = parseEnvironment(ZFullEnvironment, env)
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
    failConfig(`${missing} is required when any LIVEKIT_* variable is set`)
  }
  if (vars.LLM_API_KEY !== undefined && vars.LLM_BASE_URL === undefined) {
    failConfig('LLM_BASE_URL is required when LLM_API_KEY is set')
  }

  const { providers, providerModels } = readProviders(vars)
  if (vars.EMBEDDINGS_PROVIDER !== undefined) {
    const provider = providers[vars.EMBEDDINGS_PROVIDER]
    if (vars.EMBEDDINGS_BASE_URL !== undefined)
      failConfig(
        'EMBEDDINGS_PROVIDER and EMBEDDINGS_BASE_URL are exclusive (the base URL is the development shortcut)',
      )
    if (!provider) failConfig(`EMBEDDINGS_PROVIDER names no provider (${Object.keys(providers).join(', ')})`)
    else if (!embeddingRouteOf(provider))
      failConfig(`EMBEDDINGS_PROVIDER: ${provider.name} serves no embeddings`)
  }
  if (isProduction) {
    // Every problem at once, so one restart fixes them all. The models need LLM_BASE_URL with its
    // key, or a provider of their own (then LLM_BASE_URL is optional, and its key with it).
    const hasModelProvider = Object.values(providers).some(
      (provider) => provider.isConfigured && provider.openaiBaseUrl !== null,
    )
    const usesShortcut = vars.LLM_BASE_URL !== undefined || !hasModelProvider
    const problems = [
      ...(['JWT_SECRET', 'ADMIN_TOKEN', 'ENCRYPTION_KEY'] as const)
        .filter((name) => vars[name] === undefined)
        .map((name) => `${name} is required (generated secrets are refused)`),
      ...(vars.LLM_BASE_URL === undefined && !hasModelProvider
        ? [
            'LLM_BASE_URL or a model provider (OPENAI_API_KEY, GROQ_API_KEY, … or PROVIDERS_FILE) is required (the offline model is refused)',
          ]
        : []),
      ...(usesShortcut && vars.LLM_API_KEY === undefined ? ['LLM_API_KEY is required'] : []),
      ...(vars.DATABASE_URL === undefined && !vars.ALLOW_EMBEDDED_DATABASE
        ? ['DATABASE_URL is required (the embedded database is refused unless ALLOW_EMBEDDED_DATABASE=1)']
        : []),
      ...(vars.OUTBOUND_ALLOW_HOSTS.length > 0 ? ['OUTBOUND_ALLOW_HOSTS is refused'] : []),
    ]
    if (problems.length > 0) failConfig(`${problems.join('; ')} when NODE_ENV=production`)
  }

  const providerPrices = Object.fromEntries(providerModels.map((model) => [model.id, model.price]))

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
    providers,
    providerModels,
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
    metrics: Object.freeze({ isEnabled: vars.METRICS_ENABLED, token: vars.METRICS_TOKEN ?? null }),
    tracing: vars.OTEL_EXPORTER_OTLP_ENDPOINT
      ? Object.freeze({
          endpoint: vars.OTEL_EXPORTER_OTLP_ENDPOINT,
          serviceName: vars.OTEL_SERVICE_NAME ?? 'parley-api',
        })
      : null,
    memoryUrl: vars.MEMORY_URL ?? null,
    search: vars.SEARCH_URL
      ? Object.freeze({ url: vars.SEARCH_URL, apiKey: vars.SEARCH_API_KEY ?? null })
      : null,
    llmPrices: Object.freeze({ ...defaultLlmPrices, ...providerPrices, ...vars.LLM_PRICES }),
    chatIdleTimeoutMs: vars.CHAT_IDLE_TIMEOUT_SECONDS * 1000,
    callCheckIntervalMs: vars.CALL_CHECK_INTERVAL_SECONDS * 1000,
    agentJoinTimeoutSeconds: vars.AGENT_JOIN_TIMEOUT_SECONDS,
    callEndGraceSeconds: vars.CALL_END_GRACE_SECONDS,
    chatResumeGraceMs: vars.CHAT_RESUME_GRACE_MS,
    chatPlanCacheEntries: vars.CHAT_PLAN_CACHE_ENTRIES,
    chatMinBalanceMicros: Math.round(vars.CHAT_MIN_BALANCE_USD * 1_000_000),
    chatMaxReplyTokens: vars.CHAT_MAX_REPLY_TOKENS,
    streamLimits: Object.freeze({
      perKey: vars.STREAMS_PER_KEY,
      perOrganization: vars.STREAMS_PER_ORGANIZATION,
    }),
    invitationTtlMs: vars.INVITATION_TTL_DAYS * 24 * 60 * 60 * 1000,
    batchTickMs: vars.BATCH_TICK_MS,
    batchRetryBaseMs: vars.BATCH_RETRY_BASE_MS,
    batchStaleClaimMs: vars.BATCH_STALE_CLAIM_MS,
    exportMaxRows: vars.EXPORT_MAX_ROWS,
    httpTimeouts: Object.freeze({
      // Node refuses a headers time-out longer than the request's.
      headersMs: Math.min(vars.HTTP_HEADERS_TIMEOUT_MS, vars.HTTP_REQUEST_TIMEOUT_MS),
      requestMs: vars.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveMs: vars.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    }),
    instanceHeartbeatMs: vars.INSTANCE_HEARTBEAT_MS,
    chatCheckpointMs: vars.CHAT_CHECKPOINT_MS,
    catalogueFile: vars.CATALOGUE_FILE ? resolve(vars.CATALOGUE_FILE) : null,
    webhookRetryBaseMs: vars.WEBHOOK_RETRY_BASE_MS,
    webhookTimeoutMs: vars.WEBHOOK_TIMEOUT_MS,
    trialCreditsMicros: Math.round(vars.TRIAL_CREDITS_USD * 1_000_000),
    guessLimits: Object.freeze({
      signInPerAccount: vars.SIGNIN_ATTEMPTS_PER_ACCOUNT,
      signInPerAddress: vars.SIGNIN_ATTEMPTS_PER_ADDRESS,
      signUpPerAddress: vars.SIGNUPS_PER_ADDRESS,
      keyFailuresPerAddress: vars.KEY_FAILURES_PER_ADDRESS,
    }),
    outboundAllowHosts: Object.freeze(vars.OUTBOUND_ALLOW_HOSTS),
    knowledge: toKnowledgeConfig(vars),
    trustProxy: Array.isArray(vars.TRUST_PROXY) ? Object.freeze(vars.TRUST_PROXY) : vars.TRUST_PROXY,
    role: vars.ROLE,
    logLevel: vars.LOG_LEVEL,
    probeLogSample: vars.PROBE_LOG_SAMPLE,
  })
}
