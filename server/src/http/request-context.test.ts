import { once } from 'node:events'
import type { IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { requestContext, SLOW_PROBE_MS, sampleProbes } from './request-context.ts'

const request = (url: string) => ({ url }) as IncomingMessage

describe('the access log', () => {
  it('logs one load-balancer probe in N, the first one included, every slow probe and every other request', () => {
    const isLeftOut = sampleProbes(10)
    const probes = Array.from({ length: 30 }, (_, i) =>
      isLeftOut(request(i % 2 ? '/healthz' : '/readyz?x=1'), 1),
    )
    expect(probes.filter((leftOut) => !leftOut)).toHaveLength(3)
    expect(probes[0]).toBe(false)
    expect(isLeftOut(request('/healthz'), SLOW_PROBE_MS)).toBe(false)
    expect(isLeftOut(request('/v1/agents'), 1)).toBe(false)
    expect(isLeftOut(request('/healthzz'), 1)).toBe(false)
  })

  it('logs every probe when the sample is 1', () => {
    const isLeftOut = sampleProbes(1)
    expect([1, 2, 3].map(() => isLeftOut(request('/healthz'), 1))).toEqual([false, false, false])
  })
})

describe("a request's logger", () => {
  it('is made on first use from the prototype the app gives its requests, and carries the request', async () => {
    const lines: Array<Record<string, unknown>> = []
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) })
    const app = express()
    const context = requestContext(logger, { requests: app.request })
    app.use((req, res, next) => {
      context(req, res)
      next()
    })
    app.get('/logs', (req, res) => {
      expect(Object.hasOwn(req, 'log')).toBe(false)
      req.log.info({ step: 1 }, 'from the handler')
      expect(req.log).toBe(req.log)
      res.json({ ok: true })
    })
    const server = app.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as AddressInfo
    try {
      const response = await fetch(`http://127.0.0.1:${port}/logs?secret=1`, {
        headers: { 'x-request-id': 'abc-1' },
      })
      expect(response.headers.get('x-request-id')).toBe('abc-1')
      await expect.poll(() => lines.length).toBe(2)
      expect(lines[0]).toMatchObject({
        msg: 'from the handler',
        step: 1,
        req: { id: 'abc-1', method: 'GET', url: '/logs' },
      })
      expect(lines[1]).toMatchObject({
        msg: 'request completed',
        req: { id: 'abc-1', url: '/logs' },
        res: { statusCode: 200 },
      })
    } finally {
      server.close()
    }
  })
})
