import type { IncomingMessage } from 'node:http'
import { describe, expect, it } from 'vitest'
import { sampleProbes } from './request-context.ts'

const request = (url: string) => ({ url }) as IncomingMessage

describe('the access log', () => {
  it('logs one load-balancer probe in N, the first one included, and every other request', () => {
    const isIgnored = sampleProbes(10)
    const probes = Array.from({ length: 30 }, (_, i) =>
      isIgnored(request(i % 2 ? '/healthz' : '/readyz?x=1')),
    )
    expect(probes.filter((ignored) => !ignored)).toHaveLength(3)
    expect(probes[0]).toBe(false)
    expect(isIgnored(request('/v1/agents'))).toBe(false)
    expect(isIgnored(request('/healthzz'))).toBe(false)
  })
})
