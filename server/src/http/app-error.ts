import type { ErrorCode } from '@parley/shared'
import type { z } from 'zod'

/** One problem of a refused input: the field's dotted path and what is wrong with it. */
export type InputIssue = { field: string; message: string }

type AppErrorInit = {
  code: ErrorCode
  status: number
  message: string
  cause?: unknown
  headers?: Record<string, string>
  issues?: InputIssue[]
  /** Fields sent beside the message (e.g. a refused publish's test run id). */
  extra?: Record<string, string>
}

/**
 * The one error type of the server. `message` is safe to show to the caller; `cause` is logged,
 * never sent. The error handler turns it into the body shape of the route's area.
 */
export class AppError extends Error {
  override name = 'AppError'
  readonly code: ErrorCode
  readonly status: number
  readonly headers: Record<string, string>
  /** Every problem of a refused input, each naming its field; sent beside the message. */
  readonly issues: InputIssue[] | undefined
  readonly extra: Record<string, string>

  constructor({ code, status, message, cause, headers = {}, issues, extra = {} }: AppErrorInit) {
    super(message, { cause })
    this.code = code
    this.status = status
    this.headers = headers
    this.issues = issues
    this.extra = extra
  }

  static badRequest(message: string, code: ErrorCode = 'validation_error') {
    return new AppError({ status: 400, code, message })
  }

  /** Every issue, not only the first; an unknown field is named as the field it is. */
  static fromZod(error: z.ZodError, where: 'body' | 'query' | 'path') {
    const all = error.issues.flatMap((issue): InputIssue[] => {
      const at = issue.path.map(String)
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => ({ field: [...at, key].join('.'), message: 'is not a known field' }))
      }
      return [{ field: at.length ? at.join('.') : where, message: issue.message }]
    })
    // One problem per field: the first check a value fails says what to fix (empty, not short).
    const issues = all.filter((issue, index) => all.findIndex(({ field }) => field === issue.field) === index)
    const message = issues.map(({ field, message }) => `${field}: ${message}`).join('; ')
    return new AppError({
      status: 400,
      code: 'validation_error',
      message: message || `${where} is invalid`,
      issues,
    })
  }

  static unauthorized(message = 'Authentication required', code: ErrorCode = 'unauthorized') {
    return new AppError({ status: 401, code, message })
  }

  static paymentRequired(message = 'Insufficient credits', code: ErrorCode = 'insufficient_credits') {
    return new AppError({ status: 402, code, message })
  }

  static forbidden(message = 'You do not have permission to do this', code: ErrorCode = 'forbidden') {
    return new AppError({ status: 403, code, message })
  }

  /** `resource` names what was looked for, e.g. `AppError.notFound('agent')`. */
  static notFound(resource: string, code: ErrorCode = 'not_found') {
    return new AppError({
      status: 404,
      code,
      message: `${resource[0]?.toUpperCase()}${resource.slice(1)} not found`,
    })
  }

  /** An inactive agent is not live to the public; secret keys and the studio may still try it. */
  static agentInactive() {
    return new AppError({
      status: 403,
      code: 'agent_inactive',
      message:
        'This agent is not active; activate it (PATCH /v1/agents/{id} {"active": true}) to make it live',
    })
  }

  static conflict(message: string, code: ErrorCode = 'conflict') {
    return new AppError({ status: 409, code, message })
  }

  static tooManyRequests(retryAfterSeconds: number) {
    return new AppError({
      status: 429,
      code: 'rate_limited',
      message: `Too many requests; retry in ${retryAfterSeconds} s`,
      headers: { 'Retry-After': String(retryAfterSeconds) },
    })
  }

  /**
   * The client hung up before its request was read (499, as nginx logs it): nobody is left to
   * answer, and it is the client's doing, not a failure of ours.
   */
  static clientClosedRequest() {
    return new AppError({
      status: 499,
      code: 'client_closed_request',
      message: 'The client closed the connection before its request was read',
    })
  }

  static internal(cause?: unknown, message = 'Internal server error') {
    return new AppError({ status: 500, code: 'internal_error', message, cause })
  }

  static unavailable(message: string, cause?: unknown) {
    return new AppError({ status: 503, code: 'service_unavailable', message, cause })
  }
}
