import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { once } from 'node:events'
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { z } from 'zod'
import { METRICS_INTAKE_ENV, type Observation, ZObservation } from './job-metrics.ts'

/**
 * The worker's Prometheus metrics, served by the worker process (the scrape target) at
 * `GET /metrics` on AGENT_HTTP_PORT, behind METRICS_TOKEN (bearer) when it is set. The calls
 * run in job processes of their own: each reports what its session measured (the framework's
 * `metrics_collected` events) to the worker over a loopback intake whose address and one-boot
 * token the job processes inherit in their environment (METRICS_INTAKE_ENV). Labels are
 * bounded: provider and model (sanitized, at most MAX_LABEL_SETS pairs), never an organization,
 * agent, call or job id.
 */

const MAX_LABEL_SETS = 64
const INTAKE_MAX_BYTES = 64 * 1024
const PENDING_JOBS_LIMIT = 1000
const latency = [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10]
const ZObservations = z.array(ZObservation).max(500)

const sha256 = (value: string) => createHash('sha256').update(value).digest()
const isSameSecret = (given: string, expected: string) => timingSafeEqual(sha256(given), sha256(expected))
const bearerOf = (header: string | undefined) => header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1]

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > INTAKE_MAX_BYTES) throw new Error('too large')
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

const listen = async (server: Server, port: number, host?: string) => {
  server.listen(port, host)
  await once(server, 'listening')
  return (server.address() as AddressInfo).port
}

/** A free loopback port: bound, then released (the framework's health server takes it next). */
export const freeLoopbackPort = async () => {
  const probe = createServer()
  const port = await listen(probe, 0, '127.0.0.1')
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

export const createWorkerMetrics = ({ activeJobs }: { activeJobs: () => number }) => {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'parley_agent_' })
  new Gauge({
    name: 'parley_agent_jobs_active',
    help: 'Calls (jobs) running on this worker',
    registers: [registry],
    collect() {
      this.set(activeJobs())
    },
  })
  const jobStart = new Histogram({
    name: 'parley_agent_job_start_seconds',
    help: 'Time from the worker accepting a call to the call’s code running in its job process',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  })
  const endOfUtterance = new Histogram({
    name: 'parley_agent_end_of_utterance_delay_seconds',
    help: 'Time from the end of the caller’s speech to the decision that their turn is over',
    buckets: latency,
    registers: [registry],
  })
  const byKind = {
    stt: new Histogram({
      name: 'parley_agent_stt_duration_seconds',
      help: 'Speech-to-text time per request, by provider and model (the framework’s stt_metrics)',
      labelNames: ['provider', 'model'] as const,
      buckets: latency,
      registers: [registry],
    }),
    llm: new Histogram({
      name: 'parley_agent_llm_time_to_first_token_seconds',
      help: 'Model time to first token per turn, by provider and model (the framework’s llm_metrics)',
      labelNames: ['provider', 'model'] as const,
      buckets: latency,
      registers: [registry],
    }),
    tts: new Histogram({
      name: 'parley_agent_tts_time_to_first_byte_seconds',
      help: 'Text-to-speech time to first audio per request, by provider and model (the framework’s tts_metrics)',
      labelNames: ['provider', 'model'] as const,
      buckets: latency,
      registers: [registry],
    }),
  }

  /** Provider and model as labels: a short safe name, `other` past MAX_LABEL_SETS pairs. */
  const seenPairs = new Set<string>()
  const labelsOf = (provider: string, model: string) => {
    const clean = (value: string) => (/^[\w.:/@-]{1,64}$/.test(value) ? value : 'other')
    const labels = { provider: clean(provider), model: clean(model) }
    const pair = `${labels.provider}\n${labels.model}`
    if (!seenPairs.has(pair)) {
      if (seenPairs.size >= MAX_LABEL_SETS) return { provider: 'other', model: 'other' }
      seenPairs.add(pair)
    }
    return labels
  }

  const acceptedAt = new Map<string, number>()

  const record = (observation: Observation) => {
    switch (observation.kind) {
      case 'job_started': {
        const started = acceptedAt.get(observation.jobId)
        if (started === undefined) return
        acceptedAt.delete(observation.jobId)
        jobStart.observe((performance.now() - started) / 1000)
        return
      }
      case 'end_of_utterance':
        endOfUtterance.observe(observation.seconds)
        return
      default:
        byKind[observation.kind].observe(
          labelsOf(observation.provider, observation.model),
          observation.seconds,
        )
    }
  }

  return {
    registry,
    record,
    /** The worker accepted this job: its start is timed until its process reports `job_started`. */
    jobAccepted: (jobId: string) => {
      if (acceptedAt.size >= PENDING_JOBS_LIMIT) acceptedAt.delete(acceptedAt.keys().next().value as string)
      acceptedAt.set(jobId, performance.now())
    },
  }
}

export type WorkerMetrics = ReturnType<typeof createWorkerMetrics>

/**
 * The worker's HTTP port: `GET /metrics` (bearer `token` when given, compared timing-safe) and,
 * for every other path, the framework's own health server (`/`, `/worker`) on `healthPort`
 * behind it on loopback. Also starts the loopback intake the job processes report to and sets
 * METRICS_INTAKE_ENV for the processes started after it.
 */
export const serveWorkerHttp = async ({
  metrics,
  port,
  healthPort,
  token,
}: {
  metrics: WorkerMetrics
  port: number
  healthPort: number
  token: string | null
}) => {
  const intakeToken = randomBytes(32).toString('hex')
  const intake = createServer(async (req, res) => {
    const given = bearerOf(req.headers.authorization)
    if (req.method !== 'POST' || !given || !isSameSecret(given, intakeToken)) {
      res.writeHead(404).end()
      return
    }
    try {
      const parsed = ZObservations.safeParse(JSON.parse(await readBody(req)))
      if (!parsed.success) {
        res.writeHead(400).end()
        return
      }
      for (const observation of parsed.data) metrics.record(observation)
      res.writeHead(204).end()
    } catch {
      res.writeHead(400).end()
    }
  })
  const intakePort = await listen(intake, 0, '127.0.0.1')
  process.env[METRICS_INTAKE_ENV] = `http://127.0.0.1:${intakePort} ${intakeToken}`

  const server = createServer((req, res) => {
    if (req.url?.split('?')[0] === '/metrics' && req.method === 'GET') {
      const given = bearerOf(req.headers.authorization)
      if (token && (!given || !isSameSecret(given, token))) {
        res.writeHead(401, { 'content-type': 'text/plain' }).end('a valid metrics token is required\n')
        return
      }
      metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      )
      return
    }
    // The framework's health answers, as they are.
    const upstream = httpRequest(
      { host: '127.0.0.1', port: healthPort, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(503, { 'content-type': 'text/plain' })
      res.end('not ready\n')
    })
    req.pipe(upstream)
  })
  const boundPort = await listen(server, port)
  return {
    port: boundPort,
    close: async () => {
      server.closeAllConnections()
      intake.closeAllConnections()
      await Promise.all([
        new Promise<void>((resolve) => server.close(() => resolve())),
        new Promise<void>((resolve) => intake.close(() => resolve())),
      ])
    },
  }
}
