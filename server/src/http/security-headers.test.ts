import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import helmet from 'helmet'
import { describe, expect, it } from 'vitest'
import { applySecurityHeaders, recordSecurityHeaders } from './security-headers.ts'

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
})
