import type { IncomingMessage } from 'node:http'
import type { Attributes, Span, Tracer } from '@opentelemetry/api'
import type { RequestHandler, Response } from 'express'

/**
 * OpenTelemetry traces, on only when OTEL_EXPORTER_OTLP_ENDPOINT is set. Off, nothing of
 * OpenTelemetry is loaded (every import here is a type; the SDK comes in by `import()` in
 * startTracing) and each helper costs one null check. On, one tracer provider per process (a
 * scrape target and a trace source are both a process) exports over OTLP/HTTP JSON in batches,
 * with the W3C trace-context propagator (`traceparent`) and the AsyncLocalStorage context manager.
 *
 * The spans are ours, made where the work is: the HTTP request (a caller's `traceparent` is its
 * parent), each database statement, each model round, each custom function call, each queued job
 * (the enqueuer's context travels in the job's data) and each webhook delivery.
 * Infrastructure: this folder imports no area.
 */

type Api = typeof import('@opentelemetry/api')

let api: Api | null = null
let tracer: Tracer | null = null
let provider: { forceFlush: () => Promise<void>; shutdown: () => Promise<void> } | null = null
let starting: Promise<void> | null = null

/** OpenTelemetry's SpanKind and SpanStatusCode values (the enums live in the API, not loaded when off). */
const KIND = { server: 1, client: 2, producer: 3, consumer: 4, internal: 0 } as const
const ERROR = 2
type Kind = keyof typeof KIND

export const isTracing = () => tracer !== null

/** Loads the SDK and registers the process's tracer provider; later calls (more servers in one process) reuse it. */
export const startTracing = ({ endpoint, serviceName }: { endpoint: string; serviceName: string }) => {
  starting ??= (async () => {
    const [
      loadedApi,
      { BatchSpanProcessor, NodeTracerProvider },
      { OTLPTraceExporter },
      { resourceFromAttributes },
    ] = await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
    ])
    const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` })
    const tracerProvider = new NodeTracerProvider({
      resource: resourceFromAttributes({ 'service.name': serviceName }),
      spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
    })
    // The AsyncLocalStorage context manager and the W3C trace-context propagator, process-wide.
    // Spans come from this provider itself, not the global one: a process that already has a
    // provider (a test running the voice worker's code beside the server) keeps its own.
    tracerProvider.register()
    api = loadedApi
    provider = tracerProvider
    tracer = tracerProvider.getTracer('parley-server')
  })()
  return starting
}

/** Sends every finished span now (a test reads them; a stopping server keeps them). */
export const flushTraces = async () => {
  await provider?.forceFlush()
}

const failed = (span: Span, error: unknown) => {
  span.recordException(error instanceof Error ? error : String(error))
  span.setStatus({ code: ERROR, message: error instanceof Error ? error.message : String(error) })
}

/** Runs `run` inside a span (the parent of every span started within it); off, just runs it. */
export const inSpan = <T>(
  name: string,
  attributes: Attributes,
  run: () => Promise<T>,
  { kind = 'internal' }: { kind?: Kind } = {},
): Promise<T> => {
  if (!tracer) return run()
  return tracer.startActiveSpan(name, { kind: KIND[kind], attributes }, async (span) => {
    try {
      return await run()
    } catch (error) {
      failed(span, error)
      throw error
    } finally {
      span.end()
    }
  })
}

export type OpenSpan = { set: (attributes: Attributes) => void; end: (error?: unknown) => void }
const NO_SPAN: OpenSpan = { set: () => {}, end: () => {} }

/** A span under the current one that is never the active one (a streamed model round); `end` once. */
export const openSpan = (
  name: string,
  attributes: Attributes,
  { kind = 'internal' }: { kind?: Kind } = {},
) => {
  if (!tracer) return NO_SPAN
  const span = tracer.startSpan(name, { kind: KIND[kind], attributes })
  let isOpen = true
  return {
    set: (more: Attributes) => span.setAttributes(more),
    end: (error?: unknown) => {
      if (!isOpen) return
      isOpen = false
      if (error !== undefined) failed(span, error)
      span.end()
    },
  }
}

const traceOfRequest = new WeakMap<IncomingMessage, { traceId: string; spanId: string }>()

const routeOf = (res: Response) => {
  const { req } = res
  return req.route?.path === undefined ? 'unmatched' : `${req.baseUrl}${String(req.route.path)}`
}

/** One server span per request, the child of a caller's `traceparent` when it sends one. */
export const traceRequests: RequestHandler = (req, res, next) => {
  if (!tracer || !api) {
    next()
    return
  }
  const parent = api.propagation.extract(api.ROOT_CONTEXT, req.headers)
  const span = tracer.startSpan(
    req.method,
    { kind: KIND.server, attributes: { 'http.request.method': req.method, 'url.path': req.path } },
    parent,
  )
  const { traceId, spanId } = span.spanContext()
  traceOfRequest.set(req, { traceId, spanId })
  res.once('close', () => {
    const route = routeOf(res)
    span.updateName(`${req.method} ${route}`)
    span.setAttributes({ 'http.route': route, 'http.response.status_code': res.statusCode })
    if (res.statusCode >= 500) span.setStatus({ code: ERROR })
    span.end()
  })
  api.context.with(api.trace.setSpan(parent, span), next)
}

/** The trace and span ids for a log line: the active span's, else the request's; none when off. */
export const traceFields = (req?: IncomingMessage): { traceId?: string; spanId?: string } => {
  if (!api) return {}
  const active = api.trace.getActiveSpan()
  if (active) {
    const { traceId, spanId } = active.spanContext()
    return { traceId, spanId }
  }
  return (req && traceOfRequest.get(req)) ?? {}
}

/** The current trace context as a carrier (`{ traceparent }`) to store with queued work; null when off or outside a span. */
export const currentTraceCarrier = (): Record<string, string> | null => {
  if (!api?.trace.getActiveSpan()) return null
  const carrier: Record<string, string> = {}
  api.propagation.inject(api.context.active(), carrier)
  return carrier
}

/** Runs `run` in a span whose parent is the carrier's context (a job's enqueuer), else a new trace. */
export const inSpanFrom = <T>(
  carrier: unknown,
  name: string,
  attributes: Attributes,
  run: () => Promise<T>,
): Promise<T> => {
  if (!api || !tracer) return run()
  const parent =
    carrier && typeof carrier === 'object'
      ? api.propagation.extract(api.ROOT_CONTEXT, carrier as Record<string, string>)
      : api.ROOT_CONTEXT
  return api.context.with(parent, () => inSpan(name, attributes, run, { kind: 'consumer' }))
}
