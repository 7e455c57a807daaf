import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import helmet from 'helmet'
import { describe, expect, it } from 'vitest'
import {
  API_SECURITY_OPTIONS,
  applySecurityHeaders,
  recordSecurityHeaders,
  securityHeadersByPath,
} from './security-headers.ts'

const response = () => {
  const req = new IncomingMessage(new Socket())
  return { req, res: new ServerResponse(req) }
}

describe('security headers taken once from helmet', () => {
  it('are the headers helmet itself sets on a response', () => {
    const byHelmet = response()
    byHelmet.res.setHeader('X-Powered-By', 'Express')
    helmet()(byHelmet.req, byHelmet.res, () => {})
    const recorded = response()
    recorded.res.setHeader('X-Powered-By', 'Express')
    applySecurityHeaders(recorded.res, recordSecurityHeaders())
    expect(recorded.res.getHeaders()).toEqual(byHelmet.res.getHeaders())
    expect(recorded.res.getHeader('x-powered-by')).toBeUndefined()
    expect(Object.keys(recorded.res.getHeaders()).length).toBeGreaterThan(10)
  })

  it('refuse options computed per request', () => {
    expect(() =>
      recordSecurityHeaders({
        contentSecurityPolicy: { directives: { scriptSrc: ["'self'", () => "'nonce-abc'"] } },
      }),
    ).toThrow(/per request/)
  })

  it('give the API set everywhere but under the page roots', () => {
    const of = securityHeadersByPath(['/studio', '/favicon.ico'])
    const api = recordSecurityHeaders(API_SECURITY_OPTIONS)
    const pages = recordSecurityHeaders()
    for (const url of ['/studio', '/studio/', '/studio/agents?x=1', '/favicon.ico'])
      expect(of(url).set, url).toEqual(pages.set)
    for (const url of ['/v1/agents', '/studios', '/api/studio', '/', '/healthz?studio', undefined])
      expect(of(url).set, String(url)).toEqual(api.set)
    expect(new Map(api.set)).toEqual(
      new Map([
        ['Content-Security-Policy', "default-src 'none';frame-ancestors 'none'"],
        ['Cross-Origin-Resource-Policy', 'same-origin'],
        ['Referrer-Policy', 'no-referrer'],
        ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'],
        ['X-Content-Type-Options', 'nosniff'],
        ['X-Frame-Options', 'DENY'],
      ]),
    )
  })
})
