import { createHash, timingSafeEqual } from 'node:crypto'
import { z } from 'zod'
import { AppError } from '../http/app-error.ts'
import type { RouteTable } from '../http/route-table.ts'
import { collectProcessMetrics, registry } from './registry.ts'

const sha256 = (value: string) => createHash('sha256').update(value).digest()
/** Digests compared, so neither the token's length nor a shared prefix shows in the timing. */
const isSameSecret = (given: string, expected: string) => timingSafeEqual(sha256(given), sha256(expected))

const bearerOf = (header: string | undefined) => header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1]

/**
 * GET /metrics: the Prometheus text format. With METRICS_TOKEN set a scrape must bring it as a
 * bearer token (compared timing-safe); without, the endpoint is open (bind it to a private network).
 */
export const registerMetricsRoutes = (routes: RouteTable, { token }: { token: string | null }) => {
  collectProcessMetrics()
  routes.add({
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics of this instance (bearer METRICS_TOKEN when set)',
    tag: 'System',
    auth: 'none',
    response: z.string(),
    // Served as registry.contentType (text/plain; version=0.0.4); a media type key has no parameters.
    responseContentType: 'text/plain',
    errors: [401],
    handle: async ({ req, res }) => {
      if (token) {
        const given = bearerOf(req.get('authorization'))
        if (!given || !isSameSecret(given, token))
          throw AppError.unauthorized(
            'A valid metrics token is required (Authorization: Bearer <METRICS_TOKEN>)',
          )
      }
      const text = await registry.metrics()
      res.status(200).type(registry.contentType).send(text)
      return text
    },
  })
}
