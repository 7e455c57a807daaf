/**
 * The server of `npm run bench -- probe`, in a process of its own (forked by bench/probe.ts), so
 * its log lines are read from its stdout as an operator would read them. Says `ready` over IPC with
 * its URL and the secrets no answer or log line may hold; stops on `stop`.
 */
import { start } from '../server/src/server.ts'
import { benchConfig } from './bench-config.ts'

const { config, removeDataDir } = benchConfig(JSON.parse(process.env.BENCH_SERVER_ENV ?? '{}'))
const server = await start({ config })

process.on('message', async (request: { type: string }) => {
  if (request.type !== 'stop') return
  await server.stop()
  removeDataDir()
  process.send?.({ type: 'stopped' })
  process.exit(0)
})
process.send?.({
  type: 'ready',
  url: server.url,
  adminToken: config.adminToken,
  secrets: [config.jwtSecret, config.adminToken, config.encryptionKey],
})
