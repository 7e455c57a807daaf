/**
 * The server of `npm run bench -- chat`, in a process of its own (forked by bench/chat.ts) so the
 * memory and sockets it reports are the server's alone, not the load generator's or the fake
 * upstream's. Talks to its parent over IPC: `ready` with its URL, then `stats`, `watch` (start
 * recording event-loop delay and collection pauses from now), `pauses` (what was recorded) and
 * `stop` on request.
 */
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'
import { start } from '../server/src/server.ts'
import { benchConfig } from './bench-config.ts'

type Request = { type: 'stats' } | { type: 'watch' } | { type: 'pauses' } | { type: 'stop' }

const { config, removeDataDir } = benchConfig(JSON.parse(process.env.BENCH_SERVER_ENV ?? '{}'))
const server = await start({ config })
const send = (message: Record<string, unknown>) => process.send?.(message)

/** Event-loop delay sampled every 1 ms, and every garbage collection's pause, while watched. */
const loopDelay = monitorEventLoopDelay({ resolution: 1 })
let collections: number[] = []
const collector = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) collections.push(entry.duration)
})

process.on('message', async (request: Request) => {
  if (request.type === 'stats') {
    const keyIds = (await server.ctx.db.selectFrom('api_keys').select('id').execute()).map((row) => row.id)
    send({
      type: 'stats',
      openStreams: keyIds.reduce((sum, id) => sum + server.ctx.streams.countOpen(id), 0),
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
      collections: {
        count: collections.length,
        totalMs: collections.reduce((sum, each) => sum + each, 0),
        maxMs: Math.max(0, ...collections),
        over5Ms: collections.filter((each) => each > 5).length,
      },
    })
  } else {
    await server.stop()
    removeDataDir()
    send({ type: 'stopped' })
    process.exit(0)
  }
})
send({ type: 'ready', url: server.url })
