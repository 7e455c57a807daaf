import { isIP } from 'node:net'
import type { RequestHandler } from 'express'
import { AppError } from './app-error.ts'

/** Load-balancer probes often speak plain HTTP inside the private network. */
const probePaths = new Set(['/healthz', '/readyz'])

const isLoopback = (ip: string | undefined) => {
  if (!ip) return false
  const address = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip
  return address === '::1' || (isIP(address) === 4 && address.startsWith('127.'))
}

/**
 * Refuses plain HTTP (DESIGN.md §4). The scheme is express's `req.secure`, which reads
 * X-Forwarded-Proto only from proxies TRUST_PROXY names; `req.ip` follows the same rule, so a
 * remote client cannot pass as loopback. Loopback over HTTP is allowed outside production.
 */
export const requireHttps =
  ({ isProduction }: { isProduction: boolean }): RequestHandler =>
  (req, _res, next) => {
    if (req.secure || probePaths.has(req.path) || (!isProduction && isLoopback(req.ip))) {
      next()
      return
    }
    throw new AppError({
      status: 403,
      code: 'https_required',
      message: 'HTTPS is required; plain HTTP requests are refused',
    })
  }
