import { PostgresBackend } from '@agendajs/postgres-backend'
import { Agenda, type Job } from 'agenda'
import type pg from 'pg'
import type { Logger } from 'pino'
import type { Jobs } from '../context.ts'
import { measureJob } from '../metrics/index.ts'

export type { JobHandler, Jobs } from '../context.ts'

/**
 * Agenda on PostgreSQL, polling with SKIP LOCKED. LISTEN/NOTIFY is off on both backends: it does
 * not cross the embedded PGlite socket, and on a real server its listener pins a pooled
 * connection and re-emits connection losses as unhandled errors. A 500 ms poll costs one indexed
 * query per worker and keeps webhook retries and expiry well within their time budgets.
 */
export const createJobs = ({
  pool,
  logger,
  pollMs = 500,
}: {
  pool: pg.Pool
  logger: Logger
  pollMs?: number
}): Jobs => {
  const backend = new PostgresBackend({ pool, tableName: 'agenda_jobs', disableNotifications: true })
  const agenda = new Agenda({
    backend,
    processEvery: pollMs,
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
          try {
            await measureJob(name, job.attrs.nextRunAt, () => handler(job.attrs.data as never))
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
      await agenda.now(name, data)
    },
    schedule: async (when, name, data) => {
      await ready
      await agenda.schedule(when, name, data)
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
      if (isStarted) await agenda.drain(5000)
      else await agenda.stop()
    },
  }
}
