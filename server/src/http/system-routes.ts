import { ZHealth, ZReadiness } from '@parley/shared'
import { z } from 'zod'
import type { RouteTable } from './route-table.ts'

type Check = () => Promise<void>

const withTimeout = (check: Check, ms: number) =>
  Promise.race([
    check(),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timed out')), ms).unref()),
  ])

export const registerSystemRoutes = (
  routes: RouteTable,
  { checks, openapi }: { checks: Record<string, Check>; openapi: () => unknown },
) => {
  routes.add({
    method: 'get',
    path: '/healthz',
    summary: 'Liveness: the process is up',
    tag: 'System',
    auth: 'none',
    response: ZHealth,
    handle: () => ({ status: 'ok' as const }),
  })

  routes.add({
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: the database (and Redis, when configured) answer',
    tag: 'System',
    auth: 'none',
    response: ZReadiness,
    errors: [503],
    handle: async ({ req, res }) => {
      const names = Object.keys(checks)
      const outcomes = await Promise.allSettled(names.map((name) => withTimeout(checks[name] as Check, 2000)))
      const results = Object.fromEntries(
        names.map((name, i) => [name, outcomes[i]?.status === 'fulfilled' ? 'ok' : 'failed'] as const),
      )
      const isReady = Object.values(results).every((result) => result === 'ok')
      // Probes' access lines are sampled (request-context.ts): a failed check is logged on its own.
      if (!isReady) req.log?.warn({ checks: results }, 'not ready')
      res.status(isReady ? 200 : 503)
      return { status: isReady ? ('ok' as const) : ('unavailable' as const), checks: results }
    },
  })

  routes.add({
    method: 'get',
    path: '/v1/openapi.json',
    summary: 'This document (OpenAPI 3.1, version 1.0.0)',
    tag: 'System',
    auth: 'none',
    response: z.record(z.string(), z.unknown()),
    handle: () => openapi() as Record<string, unknown>,
  })
}
