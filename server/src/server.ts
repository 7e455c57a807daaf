import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Express } from 'express'
import type { Logger } from 'pino'
import { scheduleAgentTestJobs } from './agent-tests/index.ts'
import { loadCatalogue } from './agents/index.ts'
import { createApp, type ExtendApp } from './app.ts'
import { type Dialer, startDialer } from './batch/index.ts'
import { onCallClosed, scheduleCallJobs } from './calls/index.ts'
import { startReplyRecovery, waitForActiveReplies } from './chat/index.ts'
import { type Clock, systemClock } from './clock.ts'
import type { Config } from './config.ts'
import type { AppContext } from './context.ts'
import { newUlid } from './crypto/ids.ts'
import { migrateToLatest, openDatabase } from './db/index.ts'
import { startExportRecovery } from './export/index.ts'
import { requestClassesOf } from './http/express-classes.ts'
import { createLogger } from './http/logger.ts'
import { createRateLimits } from './http/rate-limit.ts'
import { createSignals, type Signals } from './http/signals.ts'
import { createStreamRegistry } from './http/streams.ts'
import { startIdempotencyHousekeeping } from './idempotency/housekeeping.ts'
import { startHeartbeat } from './instances/liveness.ts'
import { createJobs, registerJobHandlers } from './jobs/index.ts'
import { createKeyCache } from './keys/index.ts'
import { startKnowledge } from './knowledge/index.ts'
import { observeDatabase, recordCallClosed } from './metrics/index.ts'
import { readProviderKeys } from './orgs/index.ts'
import { schedulePhoneNumberJobs } from './phone-numbers/index.ts'
import { createLiveKit } from './providers/livekit.ts'
import { connectRedis } from './redis.ts'
import { registerRetentionJob, scheduleRetentionJob } from './retention/index.ts'
import { type DemoTenant, ensureDemoTenant } from './seed/index.ts'
import { flushTraces, startTracing } from './tracing/index.ts'

const SHUTDOWN_GRACE_MS = 10_000

export type RunningServer = {
  /** Where the server answers, e.g. http://localhost:8787. */
  url: string
  ctx: AppContext
  app: Express
  demo: { tenant: DemoTenant; isNew: boolean } | null
  /** The batch dialer of a worker (ROLE worker or all); null on ROLE=api. */
  dialer: Dialer | null
  stop: () => Promise<void>
}

/**
 * Listens with explicit time-outs: a client that never finishes its headers (slow loris) or its
 * request is answered 408 and dropped, an idle keep-alive connection is closed. None applies to an
 * answer being sent, so SSE streams and downloads run as long as they need. Expired connections
 * are looked for at least twice per headers time-out.
 */
const listen = (app: Express, { port, timeouts }: { port: number; timeouts: Config['httpTimeouts'] }) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer(
      {
        headersTimeout: timeouts.headersMs,
        requestTimeout: timeouts.requestMs,
        keepAliveTimeout: timeouts.keepAliveMs,
        connectionsCheckingInterval: Math.min(30_000, Math.ceil(timeouts.headersMs / 2)),
        ...requestClassesOf(app),
      },
      app,
    )
    server.once('listening', () => resolve(server))
    server.once('error', reject)
    server.listen(port)
  })

/** Stops accepting, lets in-flight requests finish for up to the grace period, then cuts the rest. */
const closeServer = (server: Server, graceMs: number) =>
  new Promise<void>((resolve) => {
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs)
    deadline.unref()
    server.close(() => {
      clearTimeout(deadline)
      resolve()
    })
    server.closeIdleConnections()
  })

/**
 * Boots the service: database (embedded when DATABASE_URL is unset), migrations, optional demo
 * seed, HTTP. main.ts and every test use this same function.
 */
export const start = async ({
  config,
  seedDemo = false,
  extendApp,
  clock = systemClock,
  logger = createLogger(config),
}: {
  config: Config
  seedDemo?: boolean
  extendApp?: ExtendApp
  /** Tests steer batch scheduling and calling windows with a fake clock. */
  clock?: Clock
  /** Where log lines go; pino on stdout at LOG_LEVEL unless given (tests read what is logged). */
  logger?: Logger
}): Promise<RunningServer> => {
  if (config.tracing) await startTracing(config.tracing)
  const database = await openDatabase(config, { logger })
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : null
  redis?.on('error', (error) => logger.warn({ err: error }, 'redis connection error'))
  let signals: Signals | undefined
  try {
    const applied = await migrateToLatest(database.db)
    if (applied.length > 0) logger.info({ applied }, 'migrations applied')
    signals = await createSignals({ redis, logger })
    const ctx: AppContext = Object.freeze({
      instanceId: newUlid(),
      config,
      db: database.db,
      logger,
      catalogue: loadCatalogue(config),
      redis,
      signals,
      keyCache: createKeyCache({ signals }),
      streams: createStreamRegistry({ signals, redis, limits: config.streamLimits, logger }),
      rateLimits: createRateLimits({ redis }),
      jobs: createJobs({ pool: database.jobsPool, logger, isEmbedded: database.isEmbedded }),
      clock,
      livekit: createLiveKit(config),
      readProviderKeys,
    })
    registerJobHandlers(ctx)
    const stopObserving = config.metrics.isEnabled ? observeDatabase(database) : () => {}
    if (config.metrics.isEnabled) onCallClosed(ctx, recordCallClosed)
    if (config.role !== 'api') await scheduleCallJobs(ctx)
    if (config.role !== 'api') await scheduleAgentTestJobs(ctx)
    registerRetentionJob(ctx)
    if (config.role !== 'api') await scheduleRetentionJob(ctx)
    if (config.role !== 'api') await schedulePhoneNumberJobs(ctx)
    await startKnowledge(ctx)
    // Beating before any work starts: a dial claim or a reply names this instance, and another
    // instance takes them over once its heartbeat stops.
    const stopHeartbeat = await startHeartbeat(ctx)
    // Replies a dead instance left unpaid are charged from their checkpoints.
    const stopReplyRecovery = startReplyRecovery(ctx)
    if (config.role !== 'api') await ctx.jobs.start()
    const dialer = config.role === 'api' ? null : startDialer(ctx)
    const stopExportRecovery = config.role === 'api' ? () => {} : startExportRecovery(ctx)
    const demo = seedDemo ? await ensureDemoTenant(ctx) : null

    let url = config.publicBaseUrl ?? `http://localhost:${config.port}`
    const readinessChecks: Record<string, () => Promise<void>> = { database: database.ping }
    if (redis) readinessChecks.redis = async () => void (await redis.ping())
    const app = createApp(ctx, {
      baseUrl: () => url,
      readinessChecks,
      extend: extendApp,
      demo: demo?.tenant ?? null,
    })
    const server =
      config.role === 'worker'
        ? null
        : await listen(app, { port: config.port, timeouts: config.httpTimeouts })
    if (server && !config.publicBaseUrl) url = `http://localhost:${(server.address() as AddressInfo).port}`
    const stopHousekeeping = startIdempotencyHousekeeping(ctx)
    logger.info({ url, role: config.role, embeddedDatabase: database.isEmbedded }, 'parley started')
    if (!ctx.livekit)
      logger.warn(
        'voice is off: set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET to offer voice sessions',
      )

    let stopping: Promise<void> | undefined
    const stop = () => {
      stopping ??= (async () => {
        stopHousekeeping()
        if (server) await closeServer(server, SHUTDOWN_GRACE_MS)
        await waitForActiveReplies(ctx)
        await stopReplyRecovery()
        await stopHeartbeat()
        await dialer?.stop()
        stopExportRecovery()
        stopObserving()
        await ctx.jobs.stop()
        ctx.streams.close()
        await ctx.signals.close()
        redis?.disconnect()
        await database.close()
        await flushTraces().catch(() => undefined)
        logger.info('parley stopped')
      })()
      return stopping
    }
    return { url, ctx, app, demo, dialer, stop }
  } catch (error) {
    await signals?.close()
    redis?.disconnect()
    await database.close()
    throw error
  }
}
