import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Response } from 'express'
import type pg from 'pg'
import { openSpan } from '../tracing/index.ts'
import {
  callSeconds,
  callsClosed,
  creditHolds,
  creditSpend,
  dbPoolWait,
  dials,
  httpDuration,
  httpRequests,
  jobRuns,
  jobStartDelay,
  llmErrors,
  llmFirstToken,
  llmRequests,
  openStreams,
  webhookDeliveries,
} from './registry.ts'

export { observeDatabase } from './database.ts'

/** The route template of an answered request (`/v1/agents/:id`), never its path: bounded. */
const routeOf = (req: Response['req']) =>
  req.route?.path === undefined ? 'unmatched' : `${req.baseUrl}${String(req.route.path)}`

type RequestSeries = {
  requests: ReturnType<typeof httpRequests.labels>
  duration: ReturnType<typeof httpDuration.labels>
}

/**
 * The label-bound children of each method, route template and status seen (bounded, as the
 * labels are), so a request does not build and check its labels again. A child stays bound to
 * its metric through a reset.
 */
const seriesByLabels = new Map<string, RequestSeries>()

const seriesOf = (method: string, route: string, status: number): RequestSeries => {
  const key = `${method} ${status} ${route}`
  let series = seriesByLabels.get(key)
  if (series === undefined) {
    const labels = [method, route, String(status)] as const
    series = { requests: httpRequests.labels(...labels), duration: httpDuration.labels(...labels) }
    seriesByLabels.set(key, series)
  }
  return series
}

/**
 * Counts and times every request by method, route template and status, when its answer ends.
 * Runs before express (app.ts); the route is read at the end, after express routed the request.
 */
export const measureRequest = (req: IncomingMessage, res: ServerResponse) => {
  const startedAt = performance.now()
  // 'close' comes once per response, after 'finish' or an abort.
  res.on('close', () => {
    const series = seriesOf(req.method ?? '', routeOf(req as Response['req']), res.statusCode)
    series.requests.inc()
    series.duration.observe((performance.now() - startedAt) / 1000)
  })
}

/** Counts an SSE stream as open until the returned function runs (once). */
export const countOpenStream = (res: Response) => {
  const labels = { route: routeOf(res.req) }
  openStreams.inc(labels)
  let isCounted = true
  return () => {
    if (!isCounted) return
    isCounted = false
    openStreams.dec(labels)
  }
}

/** A failed round's code: the provider's HTTP status (`http_429`), or `no_answer` (bounded either way). */
const errorCodeOf = (error: unknown) => {
  const status = (error as { status?: unknown } | null)?.status
  return typeof status === 'number' && status >= 100 && status <= 599 ? `http_${status}` : 'no_answer'
}

/**
 * Times one model round (and traces it when tracing is on): call `firstEvent` at its first
 * streamed event, then `end` once, with the error of a failed round.
 */
export const measureModelRound = ({ provider, model }: { provider: string; model: string }) => {
  const startedAt = performance.now()
  const span = openSpan(
    `chat ${model}`,
    { 'gen_ai.system': provider, 'gen_ai.request.model': model },
    { kind: 'client' },
  )
  let hasFirst = false
  // Methods, not arrow properties: see chat/checkpoint.ts.
  return {
    firstEvent() {
      if (hasFirst) return
      hasFirst = true
      llmFirstToken.observe({ provider, model }, (performance.now() - startedAt) / 1000)
    },
    end(outcome: 'ok' | 'error' | 'aborted', error?: unknown) {
      llmRequests.inc({ provider, model, outcome })
      if (outcome === 'error') llmErrors.inc({ provider, model, code: errorCodeOf(error) })
      span.set({ 'parley.outcome': outcome })
      span.end(outcome === 'error' ? (error ?? 'failed') : undefined)
    },
  }
}

/**
 * Times every wait for one of the pool's connections (everything checks out through
 * `pool.connect`). The embedded database has one connection, which Kysely and the job queue share,
 * so this is also the time a statement queued behind the others; on PostgreSQL the job queue's
 * own pool is `jobs`.
 */
export const measurePoolWaits = (pool: pg.Pool, database: 'postgres' | 'embedded' | 'jobs') => {
  const connect = pool.connect.bind(pool) as (callback?: (...args: unknown[]) => void) => unknown
  const labels = { database }
  ;(pool as { connect: unknown }).connect = (callback?: (...args: unknown[]) => void) => {
    const startedAt = performance.now()
    const observe = () => dbPoolWait.observe(labels, (performance.now() - startedAt) / 1000)
    if (callback)
      return connect((...args: unknown[]) => {
        observe()
        callback(...args)
      })
    return (connect() as Promise<unknown>).finally(observe)
  }
}

/** Counts one outbound SIP dial by how it ended: answered, busy, no_answer, rejected or failed. */
export const recordDial = (result: 'answered' | 'busy' | 'no_answer' | 'rejected' | 'failed') =>
  dials.inc({ result })

export const recordHolds = ({ kind, placed, refused }: { kind: string; placed: number; refused: number }) => {
  if (placed > 0) creditHolds.inc({ kind, outcome: 'placed' }, placed)
  if (refused > 0) creditHolds.inc({ kind, outcome: 'refused' }, refused)
}

export const recordSpend = (micros: number) => {
  if (micros > 0) creditSpend.inc(micros / 1_000_000)
}

export const recordWebhookAttempt = (result: 'succeeded' | 'retrying' | 'failed') =>
  webhookDeliveries.inc({ result })

/** Runs a queued job, recording how late it started and how it ended. */
export const measureJob = async (job: string, dueAt: Date | null | undefined, run: () => Promise<void>) => {
  if (dueAt) jobStartDelay.observe({ job_name: job }, Math.max(0, Date.now() - dueAt.getTime()) / 1000)
  try {
    await run()
    jobRuns.inc({ job_name: job, outcome: 'ok' })
  } catch (error) {
    jobRuns.inc({ job_name: job, outcome: 'error' })
    throw error
  }
}

export const recordCallClosed = (call: {
  direction: string
  status: string
  durationSeconds: number | null
}) => {
  callsClosed.inc({ direction: call.direction, status: call.status })
  if (call.durationSeconds) callSeconds.inc({ direction: call.direction }, call.durationSeconds)
}
export { registerMetricsRoutes } from './routes.ts'
