/**
 * A server of `npm run bench -- middleware`, in a process of its own (forked by
 * bench/middleware.ts) so the load generator does not share its event loop. BENCH_SIDE picks it:
 * `bare`, a bare Express 5 app with the same two routes; `bare-classes`, the same app with the
 * request classes Parley's server uses; `full`, Parley's server with its whole
 * middleware stack as `npm start` configures it by default (access log at info, metrics on), the
 * log written to this process's stdout (the parent points it at /dev/null). Says `ready` with its
 * URL over IPC, answers `cpu` with the CPU time it has used (µs), profiles between `profile-start`
 * and `profile-stop`, and stops on `stop`.
 */
import { writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { Session } from 'node:inspector/promises'
import express from 'express'
import { z } from 'zod'
import { requestClassesOf } from '../server/src/http/express-classes.ts'
import { start } from '../server/src/server.ts'
import { benchConfig } from './bench-config.ts'

const send = (message: Record<string, unknown>) => process.send?.(message)
const side = process.env.BENCH_SIDE

/**
 * The bare app, listening as `app.listen` does, or (`bare-classes`) with node's request classes
 * that Parley's server uses (server/src/http/express-classes.ts): what that change alone gives
 * an app with no middleware.
 */
const startBare = async ({ withClasses }: { withClasses: boolean }) => {
  const app = express()
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' })
  })
  app.get('/v1/bench/apiKey', (_req, res) => {
    res.json({ ok: true })
  })
  const options = withClasses ? requestClassesOf(app) : {}
  const server = await new Promise<Server>((resolve) => {
    const listening = createServer(options, app).listen(0, '127.0.0.1', () => resolve(listening))
  })
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return {
    url: `http://127.0.0.1:${address.port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const startFull = async () => {
  const { config, removeDataDir } = benchConfig({
    LOG_LEVEL: 'info',
    ...JSON.parse(process.env.BENCH_SERVER_ENV ?? '{}'),
  })
  const server = await start({
    config,
    extendApp: ({ routes }) => {
      routes.add({
        method: 'get',
        path: '/v1/bench/apiKey',
        summary: 'Benchmark no-op',
        tag: 'Bench',
        auth: 'apiKey',
        response: z.object({ ok: z.literal(true) }),
        handle: () => ({ ok: true as const }),
      })
    },
  })
  return {
    url: server.url,
    adminToken: config.adminToken,
    stop: async () => {
      await server.stop()
      removeDataDir()
    },
  }
}

/**
 * CPU profiles of chosen stretches (BENCH_PROFILE in bench/middleware.ts): V8's sampling profiler
 * through the inspector, started and stopped over IPC, so a profile holds one target's rounds and
 * not the start-up.
 */
let profiler: Session | null = null
const startProfile = async () => {
  profiler = new Session()
  profiler.connect()
  await profiler.post('Profiler.enable')
  await profiler.post('Profiler.start')
}
const stopProfile = async (file: string) => {
  if (profiler === null) return
  const { profile } = await profiler.post('Profiler.stop')
  writeFileSync(file, JSON.stringify(profile))
  profiler.disconnect()
  profiler = null
}

const server = side === 'full' ? await startFull() : await startBare({ withClasses: side === 'bare-classes' })
process.on('message', async (request: { type: string; file?: string }) => {
  if (request.type === 'profile-start') {
    await startProfile()
    send({ type: 'profiling' })
    return
  }
  if (request.type === 'profile-stop') {
    await stopProfile(request.file as string)
    send({ type: 'profiled' })
    return
  }
  if (request.type === 'cpu') {
    const { user, system } = process.cpuUsage()
    send({ type: 'cpu', micros: user + system })
    return
  }
  if (request.type !== 'stop') return
  await server.stop()
  send({ type: 'stopped' })
  process.exit(0)
})
send({ type: 'ready', url: server.url, adminToken: 'adminToken' in server ? server.adminToken : null })
