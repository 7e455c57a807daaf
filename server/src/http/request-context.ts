import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import { pathOf, requestSummary } from './logger.ts'

declare module 'node:http' {
  interface IncomingMessage {
    /** The request id (X-Request-Id), on every line logged for the request. */
    id: string
    /** A logger whose lines carry the request (its id, method and path). */
    log: Logger
  }
}

const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Keeps a caller's well-formed X-Request-Id (so traces join up) or makes one. */
const requestIdOf = (req: IncomingMessage, res: ServerResponse): string => {
  const incoming = req.headers['x-request-id']
  const id = typeof incoming === 'string' && ACCEPTABLE_REQUEST_ID.test(incoming) ? incoming : randomUUID()
  res.setHeader('X-Request-Id', id)
  return id
}

/**
 * A client that hung up before its request was read in full, with no answer written: logged as
 * 499 at warn (nginx's "client closed request"), not as a failure of ours. A response that ended
 * without reading the body (a 401 to an upload) keeps its own status.
 */
const isClientAbort = (req: IncomingMessage, res: ServerResponse) => !req.complete && !res.writableEnded

/** Load balancers' probes: a line for each would drown the log at a few per second per balancer. */
const probePaths = new Set(['/healthz', '/readyz'])

/** One probe in this many gets its access-log line unless configured (PROBE_LOG_SAMPLE). */
export const PROBE_LOG_SAMPLE = 100

/** A probe this slow is logged whatever the sample says: a balancer may be about to give up on us. */
export const SLOW_PROBE_MS = 500

/**
 * Whether a probe's access line is left out: probes are logged one in `every` (the first one
 * always, every one when `every` is 1), and a slow probe always (the caller logs every failed
 * one; a failing readiness check also logs its own warning, see system-routes.ts). Other
 * requests are never left out. Decided when the answer ends, so its outcome is known.
 */
export const sampleProbes = (every: number) => {
  let seen = 0
  return (req: IncomingMessage, elapsedMs: number) => {
    if (!probePaths.has(pathOf(req.url)) || elapsedMs >= SLOW_PROBE_MS) return false
    seen = (seen + 1) % every
    return seen !== 1 % every
  }
}

/** The response as the access line shows it: its status, 499 for a client that hung up, null before any. */
const responseSummary = (res: ServerResponse) => ({
  statusCode: isClientAbort(res.req, res) ? 499 : res.headersSent ? res.statusCode : null,
})

/** Where a request keeps its summary and, once made, its logger (read by the `log` getter). */
const SUMMARY = Symbol('parley.requestSummary')
const LOGGER = Symbol('parley.requestLogger')
type LoggedRequest = IncomingMessage & {
  [SUMMARY]?: ReturnType<typeof requestSummary>
  [LOGGER]?: Logger
}

/**
 * Request id on every response and log line; one access-log line per request, probes sampled
 * (`probeSample`). The line is pino-http's (`req`, `res`, `responseTime`, "request completed",
 * "request aborted" or "request errored" with `err`), written without its per-request child
 * logger: `req.log` is made when a handler first logs, and most never do. It is a getter on
 * `requests`, the prototype the app gives its requests (express's `app.request`), not a property
 * defined on each request: an accessor defined on an object turns it into a slow dictionary for
 * every read after (about 2.5 µs a request on this machine, without any read of `req.log`). The
 * request is summarized when it arrives (express rewrites `req.url` inside a mounted router); the
 * raw response goes to the line, where its serializer reads it and the tracing mixin finds its request.
 */
export const requestContext = (
  logger: Logger,
  { probeSample = PROBE_LOG_SAMPLE, requests }: { probeSample?: number; requests: object },
) => {
  const isLeftOut = sampleProbes(probeSample)
  const accessLog = logger.child({}, { serializers: { req: requestSummary, res: responseSummary } })
  // The line of a request that did not fail holds only what is named here (the request's id,
  // method and path, its status, its time): nothing to redact, and redaction's look through
  // every field cost each request about 3 µs. An error's line keeps it (its err carries anything).
  const completedLog = accessLog.child({}, { redact: [] })
  Object.defineProperty(requests, 'log', {
    get(this: LoggedRequest) {
      this[LOGGER] ??= accessLog.child({ req: this[SUMMARY] ?? requestSummary(this) })
      return this[LOGGER]
    },
    configurable: true,
  })
  const levelOf = (
    req: IncomingMessage,
    res: ServerResponse,
    error: Error | undefined,
    elapsedMs: number,
  ) => {
    if (isClientAbort(req, res) || res.statusCode === 499) return 'warn'
    if (error || res.statusCode >= 500) return 'error'
    if (res.statusCode >= 400) return 'warn'
    return isLeftOut(req, elapsedMs) ? 'silent' : 'info'
  }
  return (req: LoggedRequest, res: ServerResponse) => {
    const startedAt = Date.now()
    req.id = requestIdOf(req, res)
    const summary = requestSummary(req)
    req[SUMMARY] = summary
    const onDone = (error?: Error) => {
      res.off('close', onDone)
      res.off('finish', onDone)
      res.off('error', onDone)
      const responseTime = Date.now() - startedAt
      const level = levelOf(req, res, error, responseTime)
      if (level === 'silent') return
      if (error || res.statusCode >= 500) {
        const err = error ?? new Error(`failed with status code ${res.statusCode}`)
        accessLog[level]({ req: summary, res, err, responseTime }, 'request errored')
        return
      }
      const message = !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted'
      completedLog[level]({ req: summary, res, responseTime }, message)
    }
    res.on('close', onDone)
    res.on('finish', onDone)
    res.on('error', onDone)
  }
}
