import { PostgresBackend } from '@agendajs/postgres-backend'
import { Agenda, type Job } from 'agenda'
import type pg from 'pg'
import type { Logger } from 'pino'

export type JobHandler<T> = (data: T) => Promise<void>

/** The job queue as the rest of the server sees it: define handlers, enqueue now or later. */
export type Jobs = {
  define: <T extends Record<string, unknown>>(
    name: string,
    handler: JobHandler<T>,
    options?: { concurrency?: number },
  ) => void
  now: (name: string, data: Record<string, unknown>) => Promise<void>
  schedule: (when: Date, name: string, data: Record<string, unknown>) => Promise<void>
  /** Starts processing (ROLE worker or all); enqueueing works without it. */
  start: () => Promise<void>
  stop: () => Promise<void>
}

/**
 * Agenda on PostgreSQL. LISTEN/NOTIFY does not cross the embedded PGlite socket, so there the
 * workers poll often instead; on a real server notifications wake them and the poll is a backstop.
 */
export const createJobs = ({
  pool,
  isEmbedded,
  logger,
  pollMs = isEmbedded ? 250 : 2000,
}: {
  pool: pg.Pool
  isEmbedded: boolean
  logger: Logger
  pollMs?: number
}): Jobs => {
  const backend = new PostgresBackend({ pool, tableName: 'agenda_jobs', disableNotifications: isEmbedded })
  // The LISTEN connection reconnects by itself; a cut (database restart, failover, a test dropping
  // its scratch database) emits 'error', which with no listener would end the whole process.
  backend.notificationChannel?.on('error', (error: unknown) =>
    logger.warn({ err: error }, 'job notification channel error'),
  )
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
            await handler(job.attrs.data as never)
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
