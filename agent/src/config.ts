import {
  type Environment,
  failConfig,
  parseEnvironment,
  urlWithSchemes,
  wholeNumber,
  ZEnvironment,
} from '@parley/platform'
import { z } from 'zod'

/**
 * The voice agent worker's environment, parsed once per process (the worker and each of its job
 * processes) with the server's own rules for the variables both read, so a value means the same
 * thing to both and a bad one stops start-up with the same one-line message.
 */
const ZAgentEnvironment = ZEnvironment.pick({
  NODE_ENV: true,
  PORT: true,
  PUBLIC_BASE_URL: true,
  LIVEKIT_URL: true,
  LIVEKIT_API_KEY: true,
  LIVEKIT_API_SECRET: true,
  LIVEKIT_AGENT_NAME: true,
  WORKER_TOKEN: true,
  OUTBOUND_ALLOW_HOSTS: true,
  LOG_LEVEL: true,
  METRICS_TOKEN: true,
  OTEL_EXPORTER_OTLP_ENDPOINT: true,
  OTEL_SERVICE_NAME: true,
}).extend({
  PARLEY_API_URL: urlWithSchemes(['http', 'https']),
  AGENT_HTTP_PORT: ZEnvironment.shape.PORT.unwrap().default(8081),
  AGENT_IDLE_PROCESSES: wholeNumber(2, 'processes').default(2),
  AGENT_MAX_CALLS: wholeNumber(4, 'calls', 1).default(20),
  AGENT_LOAD_THRESHOLD: z
    .string()
    .regex(/^(0?\.\d+|1(\.0+)?)$/, 'must be a number above 0 and at most 1')
    .transform(Number)
    .refine((value) => value > 0, 'must be a number above 0 and at most 1')
    .default(0.7),
})

export type AgentConfig = Readonly<{
  isProduction: boolean
  livekit: Readonly<{ url: string; apiKey: string; apiSecret: string }>
  /** LIVEKIT_AGENT_NAME: the name the server dispatches explicitly. */
  agentName: string
  /** Bearer token of the server's worker endpoints (/v1/calls/{callId}/…). */
  workerToken: string
  /** Where the Parley API answers, without a trailing slash. */
  apiUrl: string
  /** The health and metrics port (0: any free port, logged at start). */
  httpPort: number
  /** Job processes kept started and waiting for a call. */
  idleProcesses: number
  /** Calls at which the worker's load is 1. */
  maxCalls: number
  /** The worker reports itself full at this load (CPU or calls/maxCalls). */
  loadThreshold: number
  outboundAllowHosts: readonly string[]
  logLevel: z.output<typeof ZAgentEnvironment>['LOG_LEVEL']
  /** GET /metrics on the HTTP port wants it as a bearer token; null: open (keep the port private). */
  metricsToken: string | null
  /** OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT); null: off, the SDK never loaded. */
  tracing: Readonly<{ endpoint: string; serviceName: string }> | null
}>

/** Reads the worker's environment; throws ConfigError with one line naming the first bad variable. */
export const loadAgentConfig = (env: Environment = process.env): AgentConfig => {
  const vars = parseEnvironment(ZAgentEnvironment, env)
  const isProduction = vars.NODE_ENV === 'production'
  if (!vars.LIVEKIT_URL || !vars.LIVEKIT_API_KEY || !vars.LIVEKIT_API_SECRET) {
    const missing = (['LIVEKIT_URL', 'LIVEKIT_API_KEY', 'LIVEKIT_API_SECRET'] as const).find(
      (name) => !vars[name],
    )
    return failConfig(`${missing} is required to run the voice agent worker`)
  }
  if (!vars.WORKER_TOKEN) {
    return failConfig(
      'WORKER_TOKEN is required to run the voice agent worker (the server must have the same one)',
    )
  }
  if (isProduction && vars.OUTBOUND_ALLOW_HOSTS.length > 0) {
    failConfig('OUTBOUND_ALLOW_HOSTS is refused when NODE_ENV=production')
  }
  const apiUrl = vars.PARLEY_API_URL ?? vars.PUBLIC_BASE_URL ?? `http://localhost:${vars.PORT}`
  return Object.freeze({
    isProduction,
    livekit: Object.freeze({
      url: vars.LIVEKIT_URL,
      apiKey: vars.LIVEKIT_API_KEY,
      apiSecret: vars.LIVEKIT_API_SECRET,
    }),
    agentName: vars.LIVEKIT_AGENT_NAME,
    workerToken: vars.WORKER_TOKEN,
    apiUrl: apiUrl.replace(/\/+$/, ''),
    httpPort: vars.AGENT_HTTP_PORT,
    idleProcesses: vars.AGENT_IDLE_PROCESSES,
    maxCalls: vars.AGENT_MAX_CALLS,
    loadThreshold: vars.AGENT_LOAD_THRESHOLD,
    outboundAllowHosts: Object.freeze(vars.OUTBOUND_ALLOW_HOSTS),
    logLevel: vars.LOG_LEVEL,
    metricsToken: vars.METRICS_TOKEN ?? null,
    tracing: vars.OTEL_EXPORTER_OTLP_ENDPOINT
      ? Object.freeze({
          endpoint: vars.OTEL_EXPORTER_OTLP_ENDPOINT,
          serviceName: vars.OTEL_SERVICE_NAME ?? 'parley-agent',
        })
      : null,
  })
}
