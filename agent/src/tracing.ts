import type { Span, Tracer } from '@opentelemetry/api'

/**
 * The worker's OpenTelemetry traces, on only when OTEL_EXPORTER_OTLP_ENDPOINT is set (off, nothing
 * of the SDK is loaded: the imports below are types, the SDK comes by `import()`). On, one tracer
 * provider per job process exports over OTLP/HTTP JSON, and the framework's own spans (the
 * session, each turn, STT, LLM, TTS, tools) go through it: it is handed to the framework with
 * `telemetry.setTracerProvider`, its LiveKit Cloud exporter free to join through the fan-out.
 * Each call to the server's worker API is a client span whose W3C trace context travels in the
 * `traceparent` header, so the server's spans of that request are its children.
 */

type Api = typeof import('@opentelemetry/api')

let api: Api | null = null
let tracer: Tracer | null = null
let flush: (() => Promise<void>) | null = null
let starting: Promise<void> | null = null

export const isTracing = () => tracer !== null

export const startWorkerTracing = ({ endpoint, serviceName }: { endpoint: string; serviceName: string }) => {
  starting ??= (async () => {
    const [loadedApi, { telemetry }, sdk, { OTLPTraceExporter }, { resourceFromAttributes }] =
      await Promise.all([
        import('@opentelemetry/api'),
        import('@livekit/agents'),
        import('@opentelemetry/sdk-trace-node'),
        import('@opentelemetry/exporter-trace-otlp-http'),
        import('@opentelemetry/resources'),
      ])
    const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` })
    const fanout = new telemetry.FanoutSpanProcessor()
    const provider = new sdk.NodeTracerProvider({
      resource: resourceFromAttributes({ 'service.name': serviceName }),
      spanProcessors: [new sdk.BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 }), fanout],
    })
    provider.register()
    // Conversation text stays out of our backend's spans: transcripts are the server's to keep.
    telemetry.setTracerProvider(provider, {
      registerSpanProcessor: (processor) => fanout.add(processor),
      allowPii: false,
    })
    api = loadedApi
    tracer = provider.getTracer('parley-agent')
    flush = () => provider.forceFlush()
  })()
  return starting
}

/** Sends every finished span now (a job's end, a test). */
export const flushWorkerTraces = async () => {
  await flush?.()
}

/**
 * Runs one request to the server inside a client span, handing `run` the headers that carry the
 * span's trace context; off, `run` gets no headers and nothing else happens.
 */
export const inClientSpan = async <T>(
  name: string,
  run: (headers: Record<string, string>) => Promise<T>,
): Promise<T> => {
  if (!api || !tracer) return run({})
  const known = api
  return tracer.startActiveSpan(name, { kind: 2 }, async (span: Span) => {
    const headers: Record<string, string> = {}
    known.propagation.inject(known.context.active(), headers)
    try {
      return await run(headers)
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error))
      span.setStatus({ code: 2 })
      throw error
    } finally {
      span.end()
    }
  })
}

/** The tracer of the worker's own spans (null when off): a test makes a parent span with it. */
export const workerTracer = () => tracer
