import type { IncomingMessage, ServerResponse } from 'node:http'
import helmet, { type HelmetOptions } from 'helmet'
import { pathOf } from './logger.ts'

/** What helmet does to a response: the headers it sets and the ones it removes, in its order. */
export type SecurityHeaders = { set: ReadonlyArray<readonly [string, string]>; removed: readonly string[] }

/**
 * Runs helmet once, on a response that only records, and returns what it did. Helmet stays the
 * source of every value; each request then gets them in one loop instead of helmet's thirteen
 * middleware functions (about 10 µs a request on the shared 2-core machine, bench/middleware.ts).
 * That holds only while no option is computed per request (a CSP directive given as a function,
 * for nonces): such options are refused here rather than frozen at their first value.
 */
export const recordSecurityHeaders = (options: Readonly<HelmetOptions> = {}): SecurityHeaders => {
  const csp = options.contentSecurityPolicy
  const directives = typeof csp === 'object' ? Object.values(csp.directives ?? {}) : []
  if (directives.flat().some((value) => typeof value === 'function'))
    throw new Error('a CSP directive is computed per request: helmet has to run on each request')
  const set: Array<readonly [string, string]> = []
  const removed: string[] = []
  const recorder = {
    setHeader: (name: string, value: unknown) => {
      if (typeof value !== 'string') throw new Error(`helmet set ${name} to a non-string value`)
      set.push([name, value])
    },
    removeHeader: (name: string) => removed.push(name),
  }
  let isDone = false
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error
    isDone = true
  })
  if (!isDone) throw new Error('helmet did not finish at once: its headers cannot be computed once')
  return { set, removed }
}

/** Sets `headers` on a response, as helmet would have. */
export const applySecurityHeaders = (res: ServerResponse, { set, removed }: SecurityHeaders) => {
  for (const [name, value] of set) res.setHeader(name, value)
  for (const name of removed) res.removeHeader(name)
}

/**
 * helmet's options for what is not a page: the API's JSON, its event streams, exports, metrics.
 * OWASP's REST Security Cheat Sheet names the headers such an answer needs: a CSP that loads
 * nothing and lets no page frame it, X-Frame-Options DENY, nosniff and HSTS (CORP and
 * Referrer-Policy stay as well). Both framing headers are stricter than helmet's page defaults
 * (`'self'`, SAMEORIGIN). Left out are the headers that only act on a document a browser renders:
 * COOP and Origin-Agent-Cluster (its browsing context and agent cluster), X-DNS-Prefetch-Control
 * (its links), X-XSS-Protection (the old XSS auditor of its HTML), X-Download-Options (IE8 opening
 * a downloaded HTML file) and X-Permitted-Cross-Domain-Policies (Flash and Acrobat policy files).
 * Six headers and about 400 bytes less on every answer (`npm run bench -- middleware`).
 */
export const API_SECURITY_OPTIONS: Readonly<HelmetOptions> = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
  },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: { action: 'deny' },
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
}

/**
 * Picks each request's set by its path's first segment: helmet's defaults under the roots that
 * serve pages and their files (`pageRoots`, each with or without what follows it), the API set
 * everywhere else, routes, 404s and errors among them. A page mounted at a root not named here
 * gets the API set, whose CSP loads nothing: it fails shut and shows at once.
 */
export const securityHeadersByPath = (pageRoots: Iterable<string>) => {
  const pages = recordSecurityHeaders()
  const api = recordSecurityHeaders(API_SECURITY_OPTIONS)
  const roots = new Set(pageRoots)
  return (url: string | undefined): SecurityHeaders => {
    const path = pathOf(url)
    const end = path.indexOf('/', 1)
    return roots.has(end === -1 ? path : path.slice(0, end)) ? pages : api
  }
}
