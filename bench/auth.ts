import { randomBytes } from 'node:crypto'
import autocannon from 'autocannon'
import { z } from 'zod'
import { start } from '../server/src/server.ts'
import { benchConfig } from './bench-config.ts'

const SECONDS_PER_RUN = Number(process.env.BENCH_SECONDS ?? 2)
const ROUNDS = 3
const CONNECTIONS = 16

type Side = { requestsPerSecond: number; p50: number; p99: number; non2xx: number }

const measureOnce = async (url: string, headers: Record<string, string>): Promise<Side> => {
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: SECONDS_PER_RUN })
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  }
}

const mean = (sides: Side[], pick: (side: Side) => number) =>
  sides.reduce((sum, side) => sum + pick(side), 0) / sides.length

/**
 * Alternates the two sides for a few rounds and averages them, so drift in the machine (the
 * load generator shares it) falls on both sides alike.
 */
const compare = async (targets: { url: string; headers: Record<string, string> }[]) => {
  // A short warm-up fills the key cache and JIT-compiles both paths before measuring.
  for (const { url, headers } of targets)
    await autocannon({ url, headers, connections: CONNECTIONS, duration: 1 })
  const runs: Side[][] = targets.map(() => [])
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, { url, headers }] of targets.entries()) runs[i]?.push(await measureOnce(url, headers))
  }
  return runs.map(
    (sides): Side => ({
      requestsPerSecond: mean(sides, (side) => side.requestsPerSecond),
      p50: mean(sides, (side) => side.p50),
      p99: mean(sides, (side) => side.p99),
      non2xx: sides.reduce((sum, side) => sum + side.non2xx, 0),
    }),
  ) as [Side, Side]
}

const post = async (url: string, body: unknown, token?: string) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  return (await response.json()) as Record<string, unknown>
}

/**
 * The auth layer's cost: an authenticated no-op (API key from the per-instance cache, then the
 * v1 rate limiter) against the same no-op without authentication, on one server over loopback.
 * The database is embedded PGlite unless DATABASE_URL is set; REDIS_URL moves the rate limiter
 * (one Redis round trip per request) to Redis.
 */
export const run = async () => {
  const { config, removeDataDir } = benchConfig()
  const noop = z.object({ ok: z.literal(true) })
  const server = await start({
    config,
    extendApp: ({ routes }) => {
      for (const auth of ['none', 'apiKey'] as const) {
        routes.add({
          method: 'get',
          path: `/v1/bench/${auth}`,
          summary: 'Benchmark no-op',
          tag: 'Bench',
          auth,
          response: noop,
          handle: () => ({ ok: true as const }),
        })
      }
    },
  })
  try {
    const session = await post(`${server.url}/api/auth/signup`, {
      organizationName: 'Bench',
      name: 'Bench',
      email: `bench-${randomBytes(4).toString('hex')}@example.com`,
      password: 'bench password 123',
    })
    const organizationId = (session.organization as { id: string }).id
    const update = await fetch(`${server.url}/admin/organizations/${organizationId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${config.adminToken}` },
      // High enough that the limiter counts every request but never refuses one.
      body: JSON.stringify({ tier: 'enterprise', rateLimitPerMinute: 1_000_000 }),
    })
    if (!update.ok) throw new Error(`raising the rate limit failed: ${update.status}`)
    const { key } = (await post(
      `${server.url}/api/api-keys`,
      { name: 'bench', type: 'secret' },
      session.token as string,
    )) as {
      key: string
    }

    const [open, authenticated] = await compare([
      { url: `${server.url}/v1/bench/none`, headers: {} },
      { url: `${server.url}/v1/bench/apiKey`, headers: { 'x-api-key': key } },
    ])
    const ratio = authenticated.requestsPerSecond / open.requestsPerSecond
    const row = (label: string, side: Side) =>
      `${label.padEnd(34)} ${side.requestsPerSecond.toFixed(0).padStart(8)} req/s   p50 ${side.p50.toFixed(1).padStart(5)} ms   p99 ${side.p99.toFixed(1).padStart(5)} ms   non-2xx ${side.non2xx}`
    const lines = [
      `auth benchmark: ${CONNECTIONS} connections, ${ROUNDS} alternating runs of ${SECONDS_PER_RUN} s per side, ${config.databaseUrl ? 'PostgreSQL' : 'embedded PGlite'}, rate limits ${config.redisUrl ? 'in Redis' : 'in memory'}`,
      row('unauthenticated no-op', open),
      row('API key (cached) + rate limit', authenticated),
      `ratio authenticated/unauthenticated: ${ratio.toFixed(3)} (auth layer costs ${((1 - ratio) * 100).toFixed(1)} % of throughput; target < 10 %)`,
    ]
    process.stdout.write(`${lines.join('\n')}\n`)
  } finally {
    await server.stop()
    removeDataDir()
  }
}
