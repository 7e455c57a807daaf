import { pino } from 'pino'
import type { Config } from '../config.ts'

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

export const createLogger = (config: Pick<Config, 'logLevel'>) =>
  pino({
    level: config.logLevel,
    redact: { paths: redactPaths, censor: '[redacted]' },
    base: { service: 'parley' },
  })
