import { inference, initializeLogger, log, voice } from '@livekit/agents'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type FakeLlm, startFakeLlm } from '../../server/test/helpers/fake-llm.ts'
import { type HttpTarget, respondJson, startHttpTarget } from '../../server/test/helpers/http-target.ts'
import { type Parley, startParley } from '../test/helpers/parley.ts'
import { readDispatch } from './dispatch.ts'
import { createMetricsReporter } from './job-metrics.ts'
import { buildCallSession } from './session.ts'
import { startWorkerTracing, workerTracer } from './tracing.ts'
import { createWorkerApi, type WorkerApi } from './worker-api.ts'
import { createWorkerMetrics, serveWorkerHttp } from './worker-metrics.ts'
import '../test/helpers/plugins.ts'

/**
 * The worker's observability against a real Parley server: its traces joined to the server's
 * over the worker API (both exporting to one local OTLP/HTTP receiver), and its /metrics after
 * a text-mode session whose framework reported its own measurements.
 */

initializeLogger({ pretty: false, level: 'fatal' })

type OtlpSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number }
type OtlpExport = {
  resourceSpans: Array<{
    resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }
    scopeSpans: Array<{ spans: OtlpSpan[] }>
  }>
}

const METRICS_TOKEN = 't'.repeat(40)
let parley: Parley
let llm: FakeLlm
let collector: HttpTarget
let health: HttpTarget
let api: WorkerApi

beforeAll(async () => {
  llm = await startFakeLlm()
  collector = await startHttpTarget((_request, response) => respondJson(response, 200, {}))
  health = await startHttpTarget((_request, response) => response.writeHead(200).end('OK'))
  parley = await startParley({
    env: {
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: 'sk-platform-key',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.origin,
    },
  })
  await startWorkerTracing({ endpoint: collector.origin, serviceName: 'parley-agent' })
  api = createWorkerApi({ apiUrl: parley.server.url, workerToken: parley.workerToken })
  // A Parley server and the framework's imports: slow on a loaded 2-core machine.
}, 180_000)
afterAll(async () => {
  await parley?.close()
  await llm?.close()
  await collector?.close()
  await health?.close()
})

/** Every span the receiver got, with the service that sent it. */
const exported = () =>
  collector.received
    .filter((request) => request.url === '/v1/traces')
    .flatMap((request) =>
      (JSON.parse(request.body) as OtlpExport).resourceSpans.flatMap((resource) => {
        const service = resource.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue
        return resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => ({ ...span, service })))
      }),
    )

describe('the worker’s traces', { timeout: 60_000 }, () => {
  it('a worker-API call carries traceparent: the server’s request span is the child of the worker’s span', async () => {
    const agent = await parley.makeVoiceAgent()
    const call = await parley.startCall(agent.id)
    const tracer = workerTracer()
    expect(tracer).not.toBeNull()
    const traceId = await tracer?.startActiveSpan('call start', async (span) => {
      await api.setup(call.callId)
      span.end()
      return span.spanContext().traceId
    })
    let chain: ReturnType<typeof exported> = []
    await vi.waitFor(
      () => {
        chain = exported().filter((span) => span.traceId === traceId)
        expect(chain.map((span) => span.name)).toEqual(
          expect.arrayContaining(['call start', 'worker_api setup', 'GET /v1/calls/:callId/setup']),
        )
      },
      { timeout: 20_000, interval: 200 },
    )
    const named = (name: string) => chain.find((span) => span.name === name)
    const root = named('call start')
    const client = named('worker_api setup')
    const server = named('GET /v1/calls/:callId/setup')
    expect(root?.service).toBe('parley-agent')
    expect(client).toMatchObject({ service: 'parley-agent', parentSpanId: root?.spanId, kind: 3 })
    expect(server).toMatchObject({ service: 'parley-api', parentSpanId: client?.spanId, kind: 2 })
    // The server's own work in that request hangs under its span: the database reads.
    expect(chain.some((span) => span.service === 'parley-api' && span.parentSpanId === server?.spanId)).toBe(
      true,
    )
  })
})

describe('the worker’s /metrics', { timeout: 60_000 }, () => {
  it('serves active jobs, job start and the framework’s own measurements, behind METRICS_TOKEN', async () => {
    const metrics = createWorkerMetrics({ activeJobs: () => 2 })
    const http = await serveWorkerHttp({ metrics, port: 0, healthPort: health.port, token: METRICS_TOKEN })
    try {
      // The job process's side, reading the intake its worker set in the environment.
      const reporter = createMetricsReporter()
      metrics.jobAccepted('AJ_one')
      reporter.jobStarted('AJ_one')

      // A text-mode session: the OpenAI plugin reports llm_metrics for its turn itself.
      const agent = await parley.makeVoiceAgent()
      const call = await parley.startCall(agent.id)
      const dispatch = readDispatch(call.metadata)
      if (!dispatch.ok) throw new Error(dispatch.problem)
      const built = buildCallSession({
        metadata: dispatch.metadata,
        setup: await api.setup(call.callId),
        services: {
          api,
          allowHosts: [],
          vad: new inference.VAD(),
          shutdown: () => {},
          logger: log(),
        },
      })
      reporter.watch(built.session)
      await built.session.start({ agent: built.agent })
      llm.queue({ text: ['Hello', ' there.'], usage: { input: 10, output: 3 } })
      await built.session.run({ userInput: 'Hello?' }).wait()
      // What a room's audio would add, as the framework's own events through the same session.
      const emit = (measured: Parameters<typeof voice.createMetricsCollectedEvent>[0]['metrics']) =>
        built.session.emit(
          voice.AgentSessionEventTypes.MetricsCollected,
          voice.createMetricsCollectedEvent({ metrics: measured }),
        )
      const now = Date.now()
      emit({
        type: 'eou_metrics',
        timestamp: now,
        endOfUtteranceDelayMs: 420,
        transcriptionDelayMs: 80,
        onUserTurnCompletedDelayMs: 5,
        lastSpeakingTimeMs: now - 500,
      })
      emit({
        type: 'stt_metrics',
        label: 'deepgram.STT',
        requestId: 'r1',
        timestamp: now,
        durationMs: 180,
        audioDurationMs: 2000,
        streamed: true,
        metadata: { modelProvider: 'deepgram', modelName: 'nova-3' },
      })
      emit({
        type: 'tts_metrics',
        label: 'cartesia.TTS',
        requestId: 'r2',
        timestamp: now,
        ttfbMs: 240,
        durationMs: 900,
        audioDurationMs: 1500,
        cancelled: false,
        charactersCount: 12,
        streamed: true,
        metadata: { modelProvider: 'cartesia', modelName: 'sonic-2' },
      })
      await built.session.close()
      await reporter.flush()

      const url = `http://127.0.0.1:${http.port}/metrics`
      expect((await fetch(url)).status).toBe(401)
      expect((await fetch(url, { headers: { authorization: `Bearer ${'x'.repeat(40)}` } })).status).toBe(401)
      const response = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toContain('text/plain')
      const text = await response.text()
      const value = (series: string) => {
        const line = text.split('\n').find((each) => each.startsWith(`${series} `))
        return line === undefined ? undefined : Number(line.split(' ').at(-1))
      }
      expect(value('parley_agent_jobs_active')).toBe(2)
      expect(value('parley_agent_job_start_seconds_count')).toBe(1)
      expect(value('parley_agent_end_of_utterance_delay_seconds_sum')).toBeCloseTo(0.42)
      expect(value('parley_agent_stt_duration_seconds_count{provider="deepgram",model="nova-3"}')).toBe(1)
      expect(
        value('parley_agent_tts_time_to_first_byte_seconds_sum{provider="cartesia",model="sonic-2"}'),
      ).toBeCloseTo(0.24)
      const llmCount = text
        .split('\n')
        .filter((line) => line.startsWith('parley_agent_llm_time_to_first_token_seconds_count{'))
      expect(llmCount.length).toBeGreaterThanOrEqual(1)
      expect(
        llmCount.reduce((total, line) => total + Number(line.split(' ').at(-1)), 0),
      ).toBeGreaterThanOrEqual(1)
      expect(value('parley_agent_process_cpu_seconds_total')).toBeGreaterThan(0)
      for (const id of [call.callId, agent.id, call.roomName, 'AJ_one']) expect(text).not.toContain(id)

      // Every other path is the framework's health server's answer.
      const healthAnswer = await fetch(`http://127.0.0.1:${http.port}/`)
      expect(healthAnswer.status).toBe(200)
      expect(await healthAnswer.text()).toBe('OK')
    } finally {
      await http.close()
    }
  })
})
