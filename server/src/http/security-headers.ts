import type { IncomingMessage, ServerResponse } from 'node:http'
import helmet, { type HelmetOptions } from 'helmet'

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
