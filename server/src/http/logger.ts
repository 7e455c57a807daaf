import type { IncomingMessage } from 'node:http'
import { type DestinationStream, pino } from 'pino'
import type { Config } from '../config.ts'
import { traceFields } from '../tracing/index.ts'

/** Paths that may carry a secret; pino replaces their values before a line is written. */
const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-studio-token"]',
  '*.password',
  '*.token',
  '*.jwtSecret',
  '*.adminToken',
]

/** The request of an access-log line (pino-http logs its raw response after the request's span ended). */
const requestOf = (merged: object) => (merged as { res?: { req?: IncomingMessage } }).res?.req

/** Pino on stdout; with tracing on, every line carries the trace and span ids it was written in. */
export const createLogger = (config: Pick<Config, 'logLevel' | 'tracing'>, destination?: DestinationStream) =>
  pino(
    {
      level: config.logLevel,
      redact: { paths: redactPaths, censor: '[redacted]' },
      base: { service: 'parley' },
      ...(config.tracing ? { mixin: (merged: object) => traceFields(requestOf(merged)) } : {}),
    },
    destination,
  )
