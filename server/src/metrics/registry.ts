import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'

/**
 * The process's Prometheus registry and every Parley metric in it (one per process: a scrape
 * target is a process). Names follow Prometheus' conventions: the `parley_` prefix, base units
 * (seconds, USD), `_total` on counters. Labels hold bounded values only (route templates, status,
 * provider, model, job name, outcome, direction), never an organization, user or agent id.
 * Infrastructure: this folder imports no area; areas call the functions of index.ts.
 */
export const registry = new Registry()

let isCollectingProcessMetrics = false
/** The process's own readings (CPU, memory, event-loop delay, GC), `parley_`-prefixed; started once. */
export const collectProcessMetrics = () => {
  if (isCollectingProcessMetrics) return
  isCollectingProcessMetrics = true
  collectDefaultMetrics({ register: registry, prefix: 'parley_' })
}

const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

export const httpRequests = new Counter({
  name: 'parley_http_requests_total',
  help: 'HTTP requests answered, by method, route template and status code',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
})

export const httpDuration = new Histogram({
  name: 'parley_http_request_duration_seconds',
  help: 'Time from a request to the end of its answer, by method, route template and status code',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: seconds,
  registers: [registry],
})

export const openStreams = new Gauge({
  name: 'parley_sse_streams_open',
  help: 'Server-Sent Events streams open on this instance, by route template',
  labelNames: ['route'] as const,
  registers: [registry],
})

export const llmFirstToken = new Histogram({
  name: 'parley_llm_time_to_first_token_seconds',
  help: 'Time from a model request to its first streamed event, by provider and provider model',
  labelNames: ['provider', 'model'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30],
  registers: [registry],
})

export const llmRequests = new Counter({
  name: 'parley_llm_requests_total',
  help: 'Model rounds streamed, by provider, provider model and outcome (ok, error, aborted)',
  labelNames: ['provider', 'model', 'outcome'] as const,
  registers: [registry],
})

export const creditHolds = new Counter({
  name: 'parley_credit_holds_total',
  help: 'Credit holds asked for, by kind and outcome (placed, refused)',
  labelNames: ['kind', 'outcome'] as const,
  registers: [registry],
})

export const creditSpend = new Counter({
  name: 'parley_credit_spend_usd_total',
  help: 'Usage debited from organizations’ credits, in US dollars',
  registers: [registry],
})

export const webhookDeliveries = new Counter({
  name: 'parley_webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts, by result (succeeded, retrying, failed)',
  labelNames: ['result'] as const,
  registers: [registry],
})

export const jobRuns = new Counter({
  name: 'parley_jobs_total',
  help: 'Queued jobs run by this instance, by job name and outcome (ok, error)',
  labelNames: ['job_name', 'outcome'] as const,
  registers: [registry],
})

export const jobStartDelay = new Histogram({
  name: 'parley_job_start_delay_seconds',
  help: 'Time from when a job was due to when this instance started it, by job name',
  labelNames: ['job_name'] as const,
  buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [registry],
})

export const callsClosed = new Counter({
  name: 'parley_calls_closed_total',
  help: 'Calls closed by this instance, by direction and status (ended, failed)',
  labelNames: ['direction', 'status'] as const,
  registers: [registry],
})

export const callSeconds = new Counter({
  name: 'parley_call_duration_seconds_total',
  help: 'Length of the calls closed by this instance, by direction (call minutes × 60)',
  labelNames: ['direction'] as const,
  registers: [registry],
})

export const dbPoolWait = new Histogram({
  name: 'parley_db_pool_wait_seconds',
  help: 'Time a query waited for a database pool connection, by database (postgres, or embedded: its one connection queues every query)',
  labelNames: ['database'] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  registers: [registry],
})

export const llmErrors = new Counter({
  name: 'parley_llm_errors_total',
  help: 'Model rounds that failed, by provider, provider model and error code (rate_limited, timeout, http_5xx, …)',
  labelNames: ['provider', 'model', 'code'] as const,
  registers: [registry],
})

export const dials = new Counter({
  name: 'parley_dials_total',
  help: 'Outbound SIP dials asked of LiveKit, by how they ended (answered, busy, no_answer, rejected, failed)',
  labelNames: ['result'] as const,
  registers: [registry],
})
