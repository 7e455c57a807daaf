import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import { pinoHttp, startTime } from 'pino-http'
import { pathOf, requestSummary } from './logger.ts'

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

type Timed = ServerResponse & { [startTime]?: number }

/**
 * Request id on every response and log line; one access-log line per request, probes sampled
 * (`probeSample`). Cheap by configuration: the serializers read the raw request and response
 * (pino-http's wrapping would first copy every header into an object the line then drops).
 */
export const requestContext = (logger: Logger, { probeSample = PROBE_LOG_SAMPLE } = {}) => {
  const isLeftOut = sampleProbes(probeSample)
  return pinoHttp({
    logger,
    genReqId: requestIdOf,
    customAttributeKeys: { reqId: 'requestId' },
    wrapSerializers: false,
    customLogLevel: (req, res, error) => {
      if (isClientAbort(req, res) || res.statusCode === 499) return 'warn'
      if (error || res.statusCode >= 500) return 'error'
      if (res.statusCode >= 400) return 'warn'
      // pino-http's own start time of the request, the one its line reports.
      return isLeftOut(req, Date.now() - ((res as Timed)[startTime] ?? 0)) ? 'silent' : 'info'
    },
    serializers: {
      req: requestSummary,
      res: (res: ServerResponse) => ({
        statusCode: isClientAbort(res.req, res) ? 499 : res.headersSent ? res.statusCode : null,
      }),
    },
  })
}
