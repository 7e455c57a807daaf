import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { chatCall, createChatSession, sendChat } from '../../test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { type HttpTarget, respondJson, startHttpTarget } from '../../test/helpers/http-target.ts'
import { createTeam, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { updateAgent } from '../agents/service.ts'
import { auditBySystem } from '../audit/index.ts'
import { createFunction } from '../functions/service.ts'
import { createLogger } from '../http/logger.ts'
import { flushTraces } from './index.ts'

/** A span as OTLP/HTTP JSON carries it (ids in hex). */
type OtlpSpan = {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes: Array<{ key: string; value: Record<string, unknown> }>
}
type OtlpExport = {
  resourceSpans: Array<{
    resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }
    scopeSpans: Array<{ spans: OtlpSpan[] }>
  }>
}

let server: TestServer
let llm: FakeLlm
let customer: HttpTarget
/** The local OTLP/HTTP receiver: what the server's exporter posted to /v1/traces. */
let collector: HttpTarget
const logLines: Array<Record<string, unknown>> = []

beforeAll(async () => {
  llm = await startFakeLlm()
  customer = await startHttpTarget((_request, response) => respondJson(response, 200, { status: 'shipped' }))
  collector = await startHttpTarget((_request, response) => respondJson(response, 200, {}))
  const tracing = { endpoint: collector.origin, serviceName: 'parley-api' }
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line) logLines.push(JSON.parse(line) as Record<string, unknown>)
      done()
    },
  })
  server = await startTestServer({
    env: {
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: 'test-llm-key',
      OUTBOUND_ALLOW_HOSTS: customer.hostAndPort,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.origin,
    },
    logger: createLogger({ logLevel: 'info', tracing }, sink),
  })
})
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
  await customer?.close()
  await collector?.close()
})

const exported = () =>
  collector.received
    .filter((request) => request.url === '/v1/traces')
    .flatMap((request) => {
      expect(request.headers['content-type']).toBe('application/json')
      const body = JSON.parse(request.body) as OtlpExport
      return body.resourceSpans.flatMap((resource) => {
        const service = resource.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue
        expect(service).toBe('parley-api')
        return resource.scopeSpans.flatMap((scope) => scope.spans)
      })
    })

/** Waits until a span named `name` (in `traceId`, when given) has reached the receiver. */
const spanNamed = async (name: string | RegExp, traceId?: string) => {
  let found: OtlpSpan | undefined
  await vi.waitFor(
    async () => {
      await flushTraces()
      found = exported().find(
        (span) =>
          (typeof name === 'string' ? span.name === name : name.test(span.name)) &&
          (traceId === undefined || span.traceId === traceId),
      )
      expect(found, String(name)).toBeDefined()
    },
    { timeout: 15_000, interval: 100 },
  )
  return found as OtlpSpan
}

/** The span's ancestors' names, nearest first, up to the root. */
const ancestorsOf = (span: OtlpSpan) => {
  const byId = new Map(exported().map((each) => [each.spanId, each]))
  const names: string[] = []
  let parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined
  while (parent) {
    names.push(parent.name)
    parent = parent.parentSpanId ? byId.get(parent.parentSpanId) : undefined
  }
  return names
}

describe('traces over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT set)', { timeout: 60_000 }, () => {
  it('a chat reply: HTTP request → database → model → custom function; its end: HTTP → job → webhook', async () => {
    const team = await createTeam(server)
    const key = await secretKeyFor(server, team.owner)
    const created = await server.request('/v1/agents', {
      method: 'POST',
      token: key,
      json: {
        name: 'Traced',
        agentArchitecture: 'text',
        model: 'gpt-4o-mini',
        systemPrompt: 'You help.',
        functionCallingEnabled: true,
        webhookUrl: `${customer.origin}/hook`,
      },
    })
    expect(created.status).toBe(201)
    const agent = ((await created.json()) as { data: { id: string } }).data
    const actor = { organizationId: team.organizationId, userId: team.owner.userId, role: 'owner' as const }
    const fn = await createFunction(server.ctx, actor, {
      agentId: agent.id,
      input: {
        name: 'lookup_order',
        label: 'Look up an order',
        description: 'Finds an order by id',
        endpoint: `${customer.origin}/orders`,
        method: 'POST',
        headers: {},
        parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
      },
    })
    await updateAgent(server.ctx, actor, {
      agentId: agent.id,
      changes: { enabledCustomFunctions: [fn.id] },
      surface: 'v1',
      by: auditBySystem,
    })
    const session = await createChatSession(server, { key, agentId: agent.id })
    llm.queue(
      {
        toolCalls: [{ name: 'lookup_order', args: ['{"order_id": "A1"}'] }],
        usage: { input: 10, output: 5 },
      },
      { text: ['Shipped.'], usage: { input: 20, output: 2 } },
    )
    await sendChat(server, session, 'Where is order A1?')

    const message = await spanNamed('POST /v1/chat/sessions/:conversation_id/messages')
    expect(message.kind).toBe(2) // OTLP's SPAN_KIND_SERVER
    expect(message.parentSpanId ?? '').toBe('')
    const inMessage = (name: string | RegExp) => spanNamed(name, message.traceId)
    const model = await inMessage('chat gpt-4o-mini')
    const fnSpan = await inMessage('function lookup_order')
    const query = await inMessage(/^db (select|insert|update)$/)
    for (const span of [model, fnSpan, query]) expect(ancestorsOf(span)).toContain(message.name)
    expect(model.parentSpanId).toBe(message.spanId)
    expect(fnSpan.parentSpanId).toBe(message.spanId)
    const statement = query.attributes.find((a) => a.key === 'db.query.text')?.value.stringValue
    expect(statement).toMatch(/\$1|select/i)
    expect(customer.received.some((request) => request.url === '/orders')).toBe(true)

    const ended = await chatCall(server, session, 'end')
    expect(ended.status).toBe(200)
    const end = await spanNamed('POST /v1/chat/sessions/:conversation_id/end')
    const job = await spanNamed('job webhook.deliver', end.traceId)
    const webhook = await spanNamed('webhook chat.ended', end.traceId)
    expect(ancestorsOf(job)).toContain(end.name)
    expect(webhook.parentSpanId).toBe(job.spanId)
    expect(ancestorsOf(webhook)).toEqual(['job webhook.deliver', ...ancestorsOf(job)])

    // Every log line written during the request carries its trace id; the access log too.
    const traced = logLines.filter((line) => line.traceId === message.traceId)
    expect(traced.length).toBeGreaterThanOrEqual(1)
    expect(
      traced.some((line) => (line.req as { url?: string } | undefined)?.url?.endsWith('/messages')),
    ).toBe(true)
  })

  it("a caller's traceparent makes the request's span its child (how the voice worker joins its calls)", async () => {
    const traceId = 'aa'.repeat(16)
    const parentSpanId = 'bb'.repeat(8)
    const response = await server.request('/v1/calls/01NOPE/setup', {
      headers: { traceparent: `00-${traceId}-${parentSpanId}-01`, authorization: 'Bearer wrong' },
    })
    expect(response.status).toBeGreaterThanOrEqual(400)
    const span = await spanNamed(/^GET /, traceId)
    expect(span.parentSpanId).toBe(parentSpanId)
    expect(span.kind).toBe(2)
  })
})
