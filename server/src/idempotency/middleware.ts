import { createHash } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Request, RequestHandler } from 'express'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import * as store from './store.ts'

const LIFETIME_MS = 24 * 60 * 60 * 1000
/** A first request silent this long is taken as dead (its process crashed) and its key freed. */
const ABANDONED_AFTER_MS = 5 * 60 * 1000
/** How long a retry waits for a concurrent first request before answering 409 "in progress". */
const WAIT_FOR_FIRST_MS = 10_000
const POLL_MS = 25
const KEY_FORM = /^[\x21-\x7e]{1,255}$/

/** JSON with sorted object keys, so the same parameters in another order are the same request. */
const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

const hashRequest = (req: Request, fingerprint: unknown) =>
  createHash('sha256')
    .update(`${req.method} ${req.originalUrl}\n${canonicalJson(fingerprint ?? null)}`)
    .digest('hex')

const differentRequest = () =>
  AppError.conflict('This Idempotency-Key was already used with a different request; use a new key')

/** Claims the key, or returns the row of the request that holds it (waiting while that one runs). */
const claimOrFind = async (ctx: AppContext, scope: store.Scope, requestHash: string) => {
  const deadline = Date.now() + WAIT_FOR_FIRST_MS
  for (;;) {
    const expiresAt = new Date(Date.now() + LIFETIME_MS)
    if (await store.claimKey(ctx.db, { ...scope, requestHash, expiresAt })) return null
    const row = await store.findLiveKey(ctx.db, scope)
    if (row && row.requestHash !== requestHash) throw differentRequest()
    if (row?.responseStatus != null) return row
    if (Date.now() > deadline)
      throw AppError.conflict('A request with this Idempotency-Key is still in progress; retry shortly')
    // Frees the key if it is past its 24 h or its first request died; then claim again.
    await store.deleteStale(ctx.db, { ...scope, abandonedBefore: new Date(Date.now() - ABANDONED_AFTER_MS) })
    if (row) await sleep(POLL_MS)
  }
}

/**
 * Stripe's rule for creating POSTs: the same Idempotency-Key with the same body within 24 h gets
 * the first (successful) response again, status and body, without the work being redone; another
 * body answers 409. Keys are scoped by `scopeOf` (the caller's organization). Only 2xx answers are
 * kept: after an error the client may fix the cause and retry with the same key. Concurrent
 * requests race on INSERT ... ON CONFLICT, so exactly one runs; the others wait for its answer.
 */
export const idempotent =
  ({
    ctx,
    scopeOf,
    fingerprintOf = (req) => req.body,
  }: {
    ctx: AppContext
    scopeOf: (req: Request) => string
    /** What makes two requests the same; the JSON body unless given (an upload adds its file's hash). */
    fingerprintOf?: (req: Request) => unknown
  }): RequestHandler =>
  async (req, res, next) => {
    const key = req.get('idempotency-key')
    if (key === undefined) {
      next()
      return
    }
    if (!KEY_FORM.test(key))
      throw AppError.badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters')
    const scope = { organizationId: scopeOf(req), key }
    const first = await claimOrFind(ctx, scope, hashRequest(req, await fingerprintOf(req)))
    if (first) {
      res.set('Idempotent-Replayed', 'true')
      res
        .status(first.responseStatus as number)
        .type('json')
        .send(first.responseBody ?? 'null')
      return
    }

    let isSettled = false
    const send = res.json.bind(res)
    // The answer is recorded before it is sent, so a retry after it never finds the key running.
    res.json = (body: unknown) => {
      isSettled = true
      const status = res.statusCode
      const record =
        status >= 200 && status < 300
          ? store.saveResponse(ctx.db, { ...scope, status, body: JSON.stringify(body) ?? 'null' })
          : store.releaseKey(ctx.db, scope)
      record
        .catch((error: unknown) =>
          ctx.logger.error({ err: error }, 'could not record an idempotent response'),
        )
        .finally(() => send(body))
      return res
    }
    res.once('close', () => {
      if (!isSettled) store.releaseKey(ctx.db, scope).catch(() => {})
    })
    next()
  }
