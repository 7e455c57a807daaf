import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import { pinoHttp } from 'pino-http'

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

/** Request id on every response and log line; one access-log line per request. */
export const requestContext = (logger: Logger) =>
  pinoHttp({
    logger,
    genReqId: requestIdOf,
    customAttributeKeys: { reqId: 'requestId' },
    customLogLevel: (req, res, error) => {
      if (isClientAbort(req, res) || res.statusCode === 499) return 'warn'
      return error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'
    },
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        url: req.url?.split('?')[0],
      }),
      res: (res: { statusCode: number | null; raw: ServerResponse }) => ({
        statusCode: isClientAbort(res.raw.req, res.raw) ? 499 : res.statusCode,
      }),
    },
  })
