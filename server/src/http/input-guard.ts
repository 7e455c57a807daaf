import { isUtf8 } from 'node:buffer'
import type { Request, RequestHandler } from 'express'
import { AppError } from './app-error.ts'

/** JSON bodies nested deeper than this are refused (no route's schema goes past a handful). */
export const MAX_JSON_DEPTH = 32

/** Body encodings express.json inflates (with its size limit applied to the inflated bytes). */
const supportedEncodings = new Set(['identity', 'gzip', 'deflate', 'br'])

/**
 * `verify` for the body parsers: the raw bytes must be UTF-8. Without it an invalid byte becomes
 * U+FFFD and is stored as if the caller had sent it.
 */
export const requireUtf8Body = (_req: unknown, _res: unknown, bytes: Buffer) => {
  if (!isUtf8(bytes)) throw AppError.badRequest('Request body is not valid UTF-8', 'invalid_encoding')
}

/**
 * Checks a parsed JSON value without recursion: no string (nor key) holds NUL, which PostgreSQL
 * cannot store in text, no key is `__proto__` (JSON.parse keeps it as a key, but zod's objects and
 * records drop it without a word, so it is refused rather than lost), and nesting stays
 * within MAX_JSON_DEPTH.
 */
export const findBadJson = (value: unknown): string | null => {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }]
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop() as { value: unknown; depth: number }
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return 'must not contain NUL characters'
      continue
    }
    if (current === null || typeof current !== 'object') continue
    if (depth >= MAX_JSON_DEPTH) return `is nested deeper than ${MAX_JSON_DEPTH} levels`
    for (const [key, child] of Object.entries(current)) {
      if (key.includes('\u0000')) return 'must not contain NUL characters'
      if (key === '__proto__') return 'must not use __proto__ as a key'
      pending.push({ value: child, depth: depth + 1 })
    }
  }
  return null
}

const hasNul = (text: string) => text.includes('\u0000') || /%00/.test(text)

/** Throws 400 when the URL's percent-escapes do not decode to UTF-8 text. */
const checkEscapes = (url: string) => {
  try {
    decodeURIComponent(url)
  } catch {
    throw AppError.badRequest('The URL holds a malformed percent-escape', 'invalid_encoding')
  }
}

/**
 * Runs before the body parsers: refuses unsupported Content-Encoding (415) and URLs with NUL or
 * malformed escapes (400), in the area's error shape.
 */
export const guardRequestLine: RequestHandler = (req, _res, next) => {
  const encoding = req.headers['content-encoding']?.trim().toLowerCase()
  if (encoding && !supportedEncodings.has(encoding)) {
    throw new AppError({
      status: 415,
      code: 'unsupported_media_type',
      message: `Content-Encoding ${encoding.slice(0, 40)} is not supported; send identity, gzip, deflate or br`,
    })
  }
  const url = req.originalUrl
  // Most URLs hold no escape at all: nothing to decode.
  if (url.includes('%')) checkEscapes(url)
  if (hasNul(url)) throw AppError.badRequest('The URL must not contain NUL characters', 'invalid_encoding')
  next()
}

/** Runs after the body parsers: refuses JSON bodies with NUL or deep nesting (400). */
export const guardParsedBody: RequestHandler = (req: Request, _res, next) => {
  if (req.body !== undefined && typeof req.body === 'object') {
    const problem = findBadJson(req.body)
    if (problem) throw AppError.badRequest(`Request body ${problem}`, 'invalid_encoding')
  } else if (typeof req.body === 'string' && req.body.includes('\u0000')) {
    throw AppError.badRequest('Request body must not contain NUL characters', 'invalid_encoding')
  }
  next()
}
