/**
 * The server of `npm run bench -- chat`, in a process of its own (forked by bench/chat.ts) so the
 * memory and sockets it reports are the server's alone, not the load generator's or the fake
 * upstream's. Talks to its parent over IPC: `ready` with its URL, then `stats` and `stop` on request.
 */
import { start } from '../server/src/server.ts'
import { benchConfig } from './bench-config.ts'

type Request = { type: 'stats' } | { type: 'stop' }

const { config, removeDataDir } = benchConfig(JSON.parse(process.env.BENCH_SERVER_ENV ?? '{}'))
const server = await start({ config })
const send = (message: Record<string, unknown>) => process.send?.(message)

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
  } else {
    await server.stop()
    removeDataDir()
    send({ type: 'stopped' })
    process.exit(0)
  }
})
send({ type: 'ready', url: server.url })
