import type { ErrorArea } from '@parley/shared'
import type { ErrorRequestHandler, RequestHandler } from 'express'
import { AppError } from './app-error.ts'

/** Which of the spec's three error shapes a path answers with. */
export const errorAreaOf = (path: string): ErrorArea => {
  if (
    path.startsWith('/v1/chat/') ||
    path === '/v1/chat' ||
    path === '/batch' ||
    path.startsWith('/batch/')
  ) {
    return 'detail'
  }
  if (path.startsWith('/api/')) return 'studio'
  return 'v1'
}

export const errorBody = (area: ErrorArea, error: AppError) => {
  const issues = { ...(error.issues ? { issues: error.issues } : {}), ...error.extra }
  switch (area) {
    case 'studio':
      return { error: error.message, code: error.code, ...issues }
    case 'detail':
      return { detail: error.message, code: error.code, ...issues }
    default:
      return { success: false as const, error: error.message, code: error.code, ...issues }
  }
}

type BodyParserError = Error & { type?: string; status?: number; code?: unknown }

/** zlib's codes (Z_DATA_ERROR, Z_BUF_ERROR…) and brotli's (ERR__ERROR_FORMAT_…, ERR_BROTLI_…). */
const isDecompressionError = (error: BodyParserError) =>
  typeof error.code === 'string' && /^(Z_|ERR__|ERR_BROTLI)/.test(error.code)

/** What body-parser's own failures (raw-body, http-errors with a `type`) mean to the caller. */
const bodyErrorByType: Record<string, () => AppError> = {
  'entity.too.large': () =>
    new AppError({ status: 413, code: 'payload_too_large', message: 'Request body is too large' }),
  'entity.parse.failed': () => AppError.badRequest('Request body is not valid JSON'),
  'charset.unsupported': () =>
    new AppError({ status: 415, code: 'unsupported_media_type', message: 'Unsupported body encoding' }),
  'encoding.unsupported': () =>
    new AppError({ status: 415, code: 'unsupported_media_type', message: 'Unsupported body encoding' }),
  'request.aborted': () => AppError.clientClosedRequest(),
  'request.size.invalid': () =>
    AppError.badRequest('Request body length does not match its Content-Length', 'invalid_encoding'),
}

/**
 * node-postgres' pool gives up waiting for a free connection after its `connectionTimeoutMillis`
 * (the embedded database has one connection, so a burst of slow writes queues behind it). That
 * is overload, not a fault: the caller is told to come back, as a load balancer would.
 */
const isPoolCheckoutTimeout = (error: unknown) =>
  error instanceof Error &&
  (error.message === 'timeout exceeded when trying to connect' ||
    error.message === 'Connection terminated due to connection timeout')

const DATABASE_BUSY_RETRY_SECONDS = 2

/** Turns what body-parser and friends throw into AppErrors with a message fit for the caller. */
const toAppError = (error: unknown): AppError => {
  if (error instanceof AppError) return error
  const parserError = error as BodyParserError
  const byType = parserError?.type ? bodyErrorByType[parserError.type] : undefined
  if (byType) return byType()
  // body-parser rethrows a failed inflation as a 400 without a type, carrying zlib's code.
  if (parserError?.status === 400 && isDecompressionError(parserError))
    return AppError.badRequest(
      'Request body could not be decoded as its Content-Encoding says (gzip, deflate or br)',
      'invalid_encoding',
    )
  // The router's param decoding: a malformed percent-escape in a path id.
  if (error instanceof URIError || (parserError?.status === 400 && parserError.type === undefined))
    return AppError.badRequest('The URL holds a malformed percent-escape', 'invalid_encoding')
  if (isPoolCheckoutTimeout(error))
    return new AppError({
      status: 503,
      code: 'service_unavailable',
      message: 'The database is busy; retry shortly',
      cause: error,
      headers: { 'Retry-After': String(DATABASE_BUSY_RETRY_SECONDS) },
    })
  return AppError.internal(error)
}

/** The only place an error body is written. */
export const handleErrors: ErrorRequestHandler = (error, req, res, _next) => {
  const appError = toAppError(error)
  // A failure with a cause is traced; a known state (voice off) is one line.
  if (appError.status >= 500) {
    if (appError.cause === undefined) req.log?.error({ code: appError.code }, appError.message)
    else req.log?.error({ err: appError.cause }, appError.message)
  }
  if (res.headersSent) {
    res.end()
    return
  }
  res.set(appError.headers)
  res.status(appError.status).json(errorBody(errorAreaOf(req.path), appError))
}

export const handleUnknownRoute: RequestHandler = (req, _res, next) => {
  next(new AppError({ status: 404, code: 'not_found', message: `No route for ${req.method} ${req.path}` }))
}
