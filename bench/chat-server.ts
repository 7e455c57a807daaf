/**
 * The server of `npm run bench -- chat`, in a process of its own (forked by bench/chat.ts) so the
 * memory and sockets it reports are the server's alone, not the load generator's or the fake
 * upstream's. Talks to its parent over IPC: `ready` with its URL, then `stats`, `watch` (start
 * recording event-loop delay and collection pauses from now), `pauses` (what was recorded) and
 * `stop` on request.
 */
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'
import { writeHeapSnapshot } from 'node:v8'
import { countActiveReplies } from '../server/src/chat/index.ts'
import { start } from '../server/src/server.ts'
import { benchConfig } from './bench-config.ts'

type Request =
  | { type: 'stats' }
  | { type: 'watch' }
  | { type: 'pauses' }
  | { type: 'snapshot'; path: string }
  | { type: 'stop' }

const { config, removeDataDir } = benchConfig(JSON.parse(process.env.BENCH_SERVER_ENV ?? '{}'))
const server = await start({ config })
const send = (message: Record<string, unknown>) => process.send?.(message)

/** Event-loop delay sampled every 1 ms, and every garbage collection's pause, while watched. */
const loopDelay = monitorEventLoopDelay({ resolution: 1 })
/** Each collection's pause and kind: scavenges (young generation) and mark-compacts (whole heap). */
let collections: { at: number; ms: number; kind: 'scavenge' | 'mark-compact' | 'other' }[] = []
const kindOf = (kind: number | undefined) =>
  kind === constants.NODE_PERFORMANCE_GC_MINOR
    ? 'scavenge'
    : kind === constants.NODE_PERFORMANCE_GC_MAJOR
      ? 'mark-compact'
      : 'other'
const collector = new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    collections.push({
      at: performance.timeOrigin + entry.startTime,
      ms: entry.duration,
      kind: kindOf((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind),
    })
})
/** Count, total, longest and how many over 5 ms of some collections. */
const summarize = (some: typeof collections) => ({
  count: some.length,
  totalMs: some.reduce((sum, each) => sum + each.ms, 0),
  maxMs: Math.max(0, ...some.map((each) => each.ms)),
  over5Ms: some.filter((each) => each.ms > 5).length,
})

process.on('message', async (request: Request) => {
  if (request.type === 'stats') {
    const keyIds = (await server.ctx.db.selectFrom('api_keys').select('id').execute()).map((row) => row.id)
    send({
      type: 'stats',
      openStreams: keyIds.reduce((sum, id) => sum + server.ctx.streams.countOpen(id), 0),
      activeReplies: countActiveReplies(server.ctx),
      ...Object.fromEntries(
        Object.entries(process.memoryUsage()).map(([name, bytes]) => [`${name}MiB`, bytes / 2 ** 20]),
      ),
    })
  } else if (request.type === 'watch') {
    loopDelay.reset()
    loopDelay.enable()
    collections = []
    collector.observe({ entryTypes: ['gc'] })
    send({ type: 'watching' })
  } else if (request.type === 'pauses') {
    loopDelay.disable()
    collector.disconnect()
    const ms = (ns: number) => ns / 1e6
    send({
      type: 'pauses',
      loopDelayMs: {
        p50: ms(loopDelay.percentile(50)),
        p90: ms(loopDelay.percentile(90)),
        p99: ms(loopDelay.percentile(99)),
        max: ms(loopDelay.max),
      },
      collections: summarize(collections),
      /** Each one's start (ms since the epoch), pause and kind: which replies they delayed. */
      each: collections,
      byKind: Object.fromEntries(
        (['scavenge', 'mark-compact', 'other'] as const).map((kind) => [
          kind,
          summarize(collections.filter((each) => each.kind === kind)),
        ]),
      ),
    })
  } else if (request.type === 'snapshot') {
    // Collected first by V8 itself: what remains is what is retained.
    send({ type: 'snapshot', path: writeHeapSnapshot(request.path) })
  } else {
    await server.stop()
    removeDataDir()
    send({ type: 'stopped' })
    process.exit(0)
  }
})
send({ type: 'ready', url: server.url })
