import type { IncomingMessage } from 'node:http'
import { describe, expect, it } from 'vitest'
import { SLOW_PROBE_MS, sampleProbes } from './request-context.ts'

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
