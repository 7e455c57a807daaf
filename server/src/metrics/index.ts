import type { RequestHandler, Response } from 'express'
import {
  callSeconds,
  callsClosed,
  creditHolds,
  creditSpend,
  httpDuration,
  httpRequests,
  jobRuns,
  jobStartDelay,
  llmFirstToken,
  llmRequests,
  openStreams,
  webhookDeliveries,
} from './registry.ts'

export { observeDatabase } from './database.ts'

/** The route template of an answered request (`/v1/agents/:id`), never its path: bounded. */
const routeOf = (req: Response['req']) =>
  req.route?.path === undefined ? 'unmatched' : `${req.baseUrl}${String(req.route.path)}`

/** Counts and times every request by method, route template and status, when its answer ends. */
export const measureRequests: RequestHandler = (req, res, next) => {
  const startedAt = process.hrtime.bigint()
  res.once('close', () => {
    const labels = { method: req.method, route: routeOf(req), status: String(res.statusCode) }
    httpRequests.inc(labels)
    httpDuration.observe(labels, Number(process.hrtime.bigint() - startedAt) / 1e9)
  })
  next()
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

/** Times one model round: call `firstEvent` at its first streamed event, then `end` once. */
export const measureModelRound = ({ provider, model }: { provider: string; model: string }) => {
  const startedAt = performance.now()
  let hasFirst = false
  return {
    firstEvent: () => {
      if (hasFirst) return
      hasFirst = true
      llmFirstToken.observe({ provider, model }, (performance.now() - startedAt) / 1000)
    },
    end: (outcome: 'ok' | 'error' | 'aborted') => llmRequests.inc({ provider, model, outcome }),
  }
}

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
