import { type ChildProcess, fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { mkdirSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

const SECONDS_PER_RUN = Number(process.env.BENCH_SECONDS ?? 4)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CONNECTIONS = 20

type Side = {
  requestsPerSecond: number
  p50: number
  p99: number
  non2xx: number
  cpuMicrosPerRequest: number
  /** The least CPU per request of any round: the figure other work on the machine inflates least. */
  leastCpuMicrosPerRequest: number
}
type Target = {
  label: string
  url: string
  headers: Record<string, string>
  cpu: () => Promise<number>
  /** The server's CPU when nobody calls it (timers, the job queue's polls), µs per second. */
  background: () => number
  /** Profiles the target's server over its measured rounds (with BENCH_PROFILE). */
  profile?: { start: () => Promise<void>; stop: (file: string) => Promise<void> }
}
type ChildMessage =
  | { type: 'ready'; url: string; adminToken: string | null }
  | { type: 'cpu'; micros: number }
  | { type: 'profiling' }
  | { type: 'profiled' }
  | { type: 'stopped' }

const nextMessage = async <T extends ChildMessage['type']>(child: ChildProcess, type: T) => {
  for (;;) {
    const [message] = (await once(child, 'message')) as [ChildMessage]
    if (message.type === type) return message as Extract<ChildMessage, { type: T }>
  }
}

/** One side in a process of its own, its stdout (the full stack's access log) on /dev/null. */
const forkSide = async (side: 'bare' | 'bare-classes' | 'full', flags: string[]) => {
  const child = fork(fileURLToPath(new URL('./middleware-server.ts', import.meta.url)), {
    execArgv: [...flags, '--import', 'tsx'],
    env: { ...process.env, BENCH_SIDE: side },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  })
  const exited = once(child, 'exit').then(() => {
    throw new Error(`the ${side} server exited`)
  })
  const ready = await Promise.race([nextMessage(child, 'ready'), exited])
  return {
    ...ready,
    cpu: async () => {
      child.send({ type: 'cpu' })
      return (await nextMessage(child, 'cpu')).micros
    },
    startProfile: async () => {
      child.send({ type: 'profile-start' })
      await nextMessage(child, 'profiling')
    },
    stopProfile: async (file: string) => {
      child.send({ type: 'profile-stop', file })
      await nextMessage(child, 'profiled')
    },
    stop: async () => {
      child.send({ type: 'stop' })
      await nextMessage(child, 'stopped').catch(() => undefined)
    },
  }
}

/** The CPU the requests cost: what the server used less its background for that long. */
const measureOnce = async (
  { url, headers, cpu, background, profile }: Target,
  duration: number,
  profileFile?: string,
): Promise<Side> => {
  if (profileFile) await profile?.start()
  const cpuBefore = await cpu()
  const startedAt = performance.now()
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration })
  const seconds = (performance.now() - startedAt) / 1000
  const cpuMicros = (await cpu()) - cpuBefore - background() * seconds
  if (profileFile) await profile?.stop(profileFile)
  return {
    cpuMicrosPerRequest: cpuMicros / Math.max(1, result.requests.total),
    leastCpuMicrosPerRequest: cpuMicros / Math.max(1, result.requests.total),
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  }
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length

const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  return (await response.json()) as Record<string, unknown>
}

/** A secret API key of a new organization whose rate limit counts every request but refuses none. */
const apiKeyOn = async (url: string, adminToken: string) => {
  const session = await post(`${url}/api/auth/signup`, {
    organizationName: 'Bench',
    name: 'Bench',
    email: `bench-${randomBytes(4).toString('hex')}@example.com`,
    password: 'bench password 123',
  })
  const organizationId = (session.organization as { id: string }).id
  const update = await fetch(`${url}/admin/organizations/${organizationId}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ tier: 'enterprise', rateLimitPerMinute: 1_000_000 }),
  })
  if (!update.ok) throw new Error(`raising the rate limit failed: ${update.status}`)
  const { key } = await post(
    `${url}/api/api-keys`,
    { name: 'bench', type: 'secret' },
    { authorization: `Bearer ${session.token as string}` },
  )
  return key as string
}

/**
 * The full middleware stack's cost against a bare Express 5 app, each server in a process of its
 * own, all up at once: `/healthz`, and a no-op route that the full stack serves behind a secret
 * API key (cached key, rate limiter) and the bare app serves as is. The aim's ratios are against
 * the bare app as `app.listen` starts it; a second bare app is started with the request classes
 * Parley's server uses (server/src/http/express-classes.ts), and the full stack's ratios against
 * it show what the middleware costs once that change is taken out. Rounds alternate the six
 * targets so the machine's drift falls on all alike; each figure is the mean of its rounds.
 * BENCH_FLAGS adds node flags to the full side (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`);
 * BENCH_PROFILE=<directory> writes a CPU profile of each target's measured rounds there
 * (without the start-up and warm-up that `--cpu-prof` holds; the profiler's cost shows in the figures).
 */
export const run = async () => {
  const fullFlags = (process.env.BENCH_FLAGS ?? '').split(' ').filter(Boolean)
  const [bare, bareClasses, full] = await Promise.all([
    forkSide('bare', []),
    forkSide('bare-classes', []),
    forkSide('full', fullFlags),
  ])
  try {
    const key = await apiKeyOn(full.url, full.adminToken as string)
    // Each server's CPU with no requests, over the same few idle seconds.
    const IDLE_SECONDS = 3
    const servers = [bare, full, bareClasses]
    const idle = await Promise.all(servers.map((server) => server.cpu()))
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000))
    /** Each server's CPU (µs a second) with no requests. */
    const backgroundOf = new Map(
      await Promise.all(
        servers.map(
          async (server, i) => [server, ((await server.cpu()) - (idle[i] as number)) / IDLE_SECONDS] as const,
        ),
      ),
    )
    const background = (server: (typeof servers)[number]) => backgroundOf.get(server) as number
    const profileDirectory = process.env.BENCH_PROFILE
    if (profileDirectory) mkdirSync(profileDirectory, { recursive: true })
    const profileFileOf = (target: Target, round: number) =>
      profileDirectory && target.profile
        ? join(profileDirectory, `${target.label.replace(/\W+/g, '-')}-${round + 1}.cpuprofile`)
        : undefined
    // A server's target on one path: the full stack's no-op is called with the key.
    const targetOf = (
      server: (typeof servers)[number],
      label: string,
      path: '/healthz' | '/v1/bench/apiKey',
      headers: Record<string, string> = {},
    ): Target => ({
      label,
      url: `${server.url}${path}`,
      headers,
      cpu: server.cpu,
      background: () => background(server),
      profile: { start: server.startProfile, stop: server.stopProfile },
    })
    const allTargets: Target[] = [
      targetOf(bare, 'bare Express /healthz', '/healthz'),
      targetOf(full, 'full stack /healthz', '/healthz'),
      targetOf(bare, 'bare Express no-op', '/v1/bench/apiKey'),
      targetOf(full, 'full stack no-op (API key)', '/v1/bench/apiKey', { 'x-api-key': key }),
      targetOf(bareClasses, 'bare + classes /healthz', '/healthz'),
      targetOf(bareClasses, 'bare + classes no-op', '/v1/bench/apiKey'),
    ]
    // BENCH_ONLY=healthz or no-op keeps the targets whose label holds it (a profile of one path).
    const only = process.env.BENCH_ONLY
    const targets = only ? allTargets.filter((target) => target.label.includes(only)) : allTargets
    const loadBefore = loadavg()
    // Warm-up: JIT, the key cache, the limiter's entry.
    for (const target of targets) await measureOnce(target, 1)
    const runs: Side[][] = targets.map(() => [])
    for (let round = 0; round < ROUNDS; round++)
      for (const [i, target] of targets.entries())
        runs[i]?.push(await measureOnce(target, SECONDS_PER_RUN, profileFileOf(target, round)))
    const sides = runs.map(
      (rounds): Side => ({
        requestsPerSecond: mean(rounds.map((side) => side.requestsPerSecond)),
        p50: mean(rounds.map((side) => side.p50)),
        p99: mean(rounds.map((side) => side.p99)),
        non2xx: rounds.reduce((sum, side) => sum + side.non2xx, 0),
        cpuMicrosPerRequest: mean(rounds.map((side) => side.cpuMicrosPerRequest)),
        leastCpuMicrosPerRequest: Math.min(...rounds.map((side) => side.cpuMicrosPerRequest)),
      }),
    ) as [Side, Side, Side, Side, Side, Side]
    const loadAfter = loadavg()
    const row = (label: string, side: Side, rounds: Side[]) =>
      `${label.padEnd(28)} ${side.requestsPerSecond.toFixed(0).padStart(7)} req/s (rounds ${rounds.map((r) => r.requestsPerSecond.toFixed(0)).join(', ')})   p50 ${side.p50.toFixed(1)} ms   p99 ${side.p99.toFixed(1)} ms   server CPU ${side.cpuMicrosPerRequest.toFixed(0)} µs/request (least ${side.leastCpuMicrosPerRequest.toFixed(0)})   non-2xx ${side.non2xx}`
    const ratio = (full: Side, bare: Side) => (full.requestsPerSecond / bare.requestsPerSecond).toFixed(3)
    // What the full stack's throughput would be on a server that has a core to itself: the
    // ratio of CPU per request, steadier than req/s when other work shares the machine.
    const cpuRatio = (full: Side, bare: Side) =>
      (bare.cpuMicrosPerRequest / full.cpuMicrosPerRequest).toFixed(3)
    const leastCpuRatio = (full: Side, bare: Side) =>
      (bare.leastCpuMicrosPerRequest / full.leastCpuMicrosPerRequest).toFixed(3)
    const lines = [
      `middleware benchmark: ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${SECONDS_PER_RUN} s per target, ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}, rate limits ${process.env.REDIS_URL ? 'in Redis' : 'in memory'}; load average ${loadBefore.map((n) => n.toFixed(2)).join(' ')} before, ${loadAfter.map((n) => n.toFixed(2)).join(' ')} after`,
      `background CPU with no requests: bare ${(background(bare) / 1e4).toFixed(1)} % of a core, full ${(background(full) / 1e4).toFixed(1)} % (the job queue's polls, timers; subtracted from the CPU per request below, not from req/s)`,
      ...targets.map((target, i) => row(target.label, sides[i] as Side, runs[i] as Side[])),
      ...(targets.length < 6
        ? []
        : [
            `ratio full/bare req/s: /healthz ${ratio(sides[1], sides[0])}, authenticated no-op ${ratio(sides[3], sides[2])} (target ≥ 0.8 each)`,
            `ratio bare/full server CPU per request: /healthz ${cpuRatio(sides[1], sides[0])}, authenticated no-op ${cpuRatio(sides[3], sides[2])} (the req/s ratio a server with a core of its own would see)`,
            `ratio of the least CPU per request of any round: /healthz ${leastCpuRatio(sides[1], sides[0])}, authenticated no-op ${leastCpuRatio(sides[3], sides[2])} (the rounds other work disturbed least)`,
            `against the bare app with the same request classes (what the classes alone give): req/s /healthz ${ratio(sides[1], sides[4])}, authenticated no-op ${ratio(sides[3], sides[5])}; CPU per request /healthz ${cpuRatio(sides[1], sides[4])}, authenticated no-op ${cpuRatio(sides[3], sides[5])}`,
          ]),
    ]
    process.stdout.write(`${lines.join('\n')}\n`)
  } finally {
    await Promise.all([bare.stop(), bareClasses.stop(), full.stop()])
  }
}
