import { PostgresBackend } from '@agendajs/postgres-backend'
import { Agenda, InMemoryNotificationChannel, type Job } from 'agenda'
import type pg from 'pg'
import type { Logger } from 'pino'
import type { Jobs } from '../context.ts'
import { measureJob } from '../metrics/index.ts'
import { currentTraceCarrier, inSpanFrom } from '../tracing/index.ts'

export type { JobHandler, Jobs } from '../context.ts'

/** Where a job's data carries its enqueuer's trace context (`traceparent`) when tracing is on. */
const TRACE_KEY = '_trace'

const withTrace = (data: Record<string, unknown>) => {
  const carrier = currentTraceCarrier()
  return carrier ? { ...data, [TRACE_KEY]: carrier } : data
}

/** A job's own data, as its handler was given it, and the trace context stored with it. */
const withoutTrace = (stored: Record<string, unknown> | undefined) => {
  if (!stored || !(TRACE_KEY in stored)) return { carrier: undefined, data: stored }
  const { [TRACE_KEY]: carrier, ...data } = stored
  return { carrier, data }
}

/** Agenda's job processor, private in its types: its stop() is the first half of agenda.stop(). */
const processorOf = (agenda: Agenda) =>
  (agenda as unknown as { jobProcessor?: { stop: () => Job[] } }).jobProcessor

/** How often the embedded database is polled: a safety net there, new jobs are announced in memory. */
export const EMBEDDED_POLL_MS = 5000

/**
 * Agenda on PostgreSQL, polling with SKIP LOCKED. LISTEN/NOTIFY is off on both backends: it does
 * not cross the embedded PGlite socket, and on a real server its listener pins a pooled
 * connection and re-emits connection losses as unhandled errors. On a real server a 500 ms poll
 * (one indexed query per job name) keeps webhook retries and expiry well within their time
 * budgets whichever instance enqueued them. The embedded database has a single process by
 * construction, so agenda's in-memory notification channel tells the poller of each job saved
 * (it locks one due before the next scan at once, as a poll would) and the poll, which runs in the
 * main thread's PGlite, slows to EMBEDDED_POLL_MS: an idle server polled 10–14 % of a core at 500 ms.
 */
export const createJobs = ({
  pool,
  logger,
  isEmbedded = false,
  pollMs = isEmbedded ? EMBEDDED_POLL_MS : 500,
}: {
  pool: pg.Pool
  logger: Logger
  isEmbedded?: boolean
  pollMs?: number
}): Jobs => {
  const backend = new PostgresBackend({ pool, tableName: 'agenda_jobs', disableNotifications: true })
  const agenda = new Agenda({
    backend,
    processEvery: pollMs,
    ...(isEmbedded ? { notificationChannel: new InMemoryNotificationChannel() } : {}),
    defaultLockLifetime: 5 * 60 * 1000,
    removeOnComplete: true,
  })
  agenda.on('error', (error: unknown) => logger.error({ err: error }, 'job queue error'))
  let isStarted = false
  const ready = agenda.ready

  return {
    define: (name, handler, options = {}) => {
      agenda.define(
        name,
        async (job: Job<Record<string, unknown>>) => {
          const { carrier, data } = withoutTrace(job.attrs.data)
          try {
            await inSpanFrom(carrier, `job ${name}`, { 'parley.job.name': name }, () =>
              measureJob(name, job.attrs.nextRunAt, () => handler(data as never)),
            )
          } catch (error) {
            logger.error({ err: error, job: name }, 'job failed')
            throw error
          }
        },
        { concurrency: options.concurrency ?? 10 },
      )
    },
    now: async (name, data) => {
      await ready
      await agenda.now(name, withTrace(data))
    },
    schedule: async (when, name, data) => {
      await ready
      await agenda.schedule(when, name, withTrace(data))
    },
    every: async (intervalMs, name) => {
      await ready
      await agenda.every(intervalMs, name, undefined, { skipImmediate: true })
    },
    start: async () => {
      await agenda.start()
      isStarted = true
    },
    stop: async () => {
      if (!isStarted) return agenda.stop()
      // agenda.drain waits for the running jobs but leaves the ones it locked ahead of their time
      // (due before the next poll) locked for defaultLockLifetime: after a restart they would wait
      // five minutes. Its processor's stop() ends the polling and lists those (agenda.stop()
      // unlocks them the same way, but does not wait for the running ones).
      const lockedAhead = processorOf(agenda)?.stop() ?? []
      const ids = lockedAhead.flatMap((job) => (job.attrs._id === undefined ? [] : [job.attrs._id]))
      if (ids.length > 0) await agenda.db.unlockJobs(ids)
      await agenda.drain(5000)
    },
  }
}
