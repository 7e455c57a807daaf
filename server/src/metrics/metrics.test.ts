import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createChatSession, sendChat } from '../../test/helpers/chat.ts'
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import type { TestServer } from '../../test/helpers/test-server.ts'
import {
  backdateCall,
  startVoiceSession,
  startVoiceStack,
  type VoiceStack,
} from '../../test/helpers/voice.ts'

const METRICS_TOKEN = 'm'.repeat(40)
let stack: VoiceStack
let server: TestServer
let receiver: HttpTarget

beforeAll(async () => {
  receiver = await startHttpTarget((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
  })
  stack = await startVoiceStack({
    env: { METRICS_TOKEN, OUTBOUND_ALLOW_HOSTS: receiver.hostAndPort },
  })
  server = stack.server
})
afterAll(async () => {
  await stack?.close()
  await receiver?.close()
})

type Sample = { name: string; labels: Record<string, string>; value: number }

/** The Prometheus text format's samples (no escaped quotes in our label values). */
const parse = (text: string): Sample[] =>
  text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = line.match(/^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/)
      if (!match) throw new Error(`not a sample: ${line}`)
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]),
      )
      return { name: match[1] as string, labels, value: Number(match[3]) }
    })

const scrape = async () => {
  const response = await server.request('/metrics', { token: METRICS_TOKEN })
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toContain('text/plain')
  return response.text()
}

const sum = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
    .reduce((total, s) => total + s.value, 0)

describe('GET /metrics', () => {
  it('wants METRICS_TOKEN as a bearer token when it is set', async () => {
    expect((await server.request('/metrics')).status).toBe(401)
    const wrong = await server.request('/metrics', { token: 'x'.repeat(40) })
    expect(wrong.status).toBe(401)
    expect(await wrong.json()).toMatchObject({ success: false, code: 'unauthorized' })
    expect((await server.request('/metrics', { token: METRICS_TOKEN })).status).toBe(200)
  })

  it('shows each family with sane values after real traffic, and no id in any label', async () => {
    // The registry is the process's: other test files in this process add to its counters too.
    const spentBefore = sum(parse(await scrape()), 'parley_credit_spend_usd_total')
    const team = await createTeam(server)
    const key = await secretKeyFor(server, team.owner)
    const created = await server.request('/v1/agents', {
      method: 'POST',
      token: key,
      json: {
        name: 'Measured',
        agentArchitecture: 'text',
        model: 'gpt-4o-mini',
        systemPrompt: 'Hi',
        webhookUrl: `${receiver.origin}/hook`,
      },
    })
    const agent = ((await created.json()) as { data: { id: string } }).data
    const session = await createChatSession(server, { key, agentId: agent.id })
    stack.llm.queue({ text: ['Hello', ' there.'], usage: { input: 1000, output: 1000 } })
    await sendChat(server, session, 'Hi')
    // A provider that refuses a round: counted by provider, model and code (its HTTP status).
    stack.llm.queue({ status: 429 })
    await sendChat(server, session, 'Again').catch(() => undefined)
    const ping = await server.request(`/v1/agents/${agent.id}/webhook/test`, { method: 'POST', token: key })
    expect(ping.status).toBe(200)
    const voiceAgent = (await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })).id
    const call = await startVoiceSession(server, { key, agentId: voiceAgent })
    const during = parse(await scrape())
    expect(sum(during, 'parley_calls_active', { direction: 'web' })).toBeGreaterThanOrEqual(1)
    await backdateCall(server, call.room_name, 90)
    const ended = await server.request(`/v1/calls/${call.callId}/end`, {
      method: 'POST',
      token: stack.workerToken,
      json: { reason: 'agent_ended' },
    })
    expect(ended.status).toBe(200)
    await server.request('/v1/agents/NOPE', { token: key })

    const text = await scrape()
    const samples = parse(text)
    const agentRoute = { method: 'GET', route: '/v1/agents/:agentId', status: '404' }
    expect(sum(samples, 'parley_http_requests_total', agentRoute)).toBeGreaterThanOrEqual(1)
    expect(sum(samples, 'parley_http_request_duration_seconds_count', agentRoute)).toBeGreaterThanOrEqual(1)
    expect(sum(samples, 'parley_http_request_duration_seconds_sum', agentRoute)).toBeGreaterThan(0)
    expect(samples.some((s) => s.name === 'parley_sse_streams_open')).toBe(true)
    expect(sum(samples, 'parley_sse_streams_open')).toBeGreaterThanOrEqual(0)
    expect(sum(samples, 'parley_llm_time_to_first_token_seconds_count')).toBeGreaterThanOrEqual(1)
    expect(sum(samples, 'parley_llm_requests_total', { outcome: 'ok' })).toBeGreaterThanOrEqual(1)
    expect(sum(samples, 'parley_credit_holds_total', { outcome: 'placed' })).toBeGreaterThanOrEqual(1)
    const spent = sum(samples, 'parley_credit_spend_usd_total') - spentBefore
    expect(spent).toBeGreaterThan(0)
    expect(spent).toBeLessThan(5)
    expect(
      sum(samples, 'parley_webhook_delivery_attempts_total', { result: 'succeeded' }),
    ).toBeGreaterThanOrEqual(1)
    expect(
      sum(samples, 'parley_calls_closed_total', { direction: 'web', status: 'ended' }),
    ).toBeGreaterThanOrEqual(1)
    expect(sum(samples, 'parley_call_duration_seconds_total', { direction: 'web' })).toBeGreaterThanOrEqual(
      90,
    )
    expect(samples.some((s) => s.name === 'parley_calls_active' && s.labels.direction === 'outbound')).toBe(
      true,
    )
    expect(text).toContain('# TYPE parley_job_queue_lag_seconds gauge')
    expect(sum(samples, 'parley_job_queue_lag_seconds')).toBeGreaterThanOrEqual(0)
    expect(sum(samples, 'parley_db_pool_connections')).toBeGreaterThanOrEqual(1)
    expect(sum(samples, 'parley_db_pool_waiting_requests')).toBeGreaterThanOrEqual(0)
    const database = server.env.DATABASE_URL ? 'postgres' : 'embedded'
    expect(sum(samples, 'parley_db_pool_wait_seconds_count', { database })).toBeGreaterThanOrEqual(10)
    expect(sum(samples, 'parley_db_pool_wait_seconds_sum', { database })).toBeGreaterThanOrEqual(0)
    // On PostgreSQL the job queue checks out from a pool of its own (the delivery above was a job).
    if (server.env.DATABASE_URL)
      expect(sum(samples, 'parley_db_pool_wait_seconds_count', { database: 'jobs' })).toBeGreaterThanOrEqual(
        1,
      )
    expect(sum(samples, 'parley_llm_errors_total', { code: 'http_429' })).toBeGreaterThanOrEqual(1)
    expect(text).toContain('# TYPE parley_dials_total counter')
    expect(sum(samples, 'parley_nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0)
    expect(samples.some((s) => s.name === 'parley_nodejs_eventloop_lag_p99_seconds')).toBe(true)

    for (const sample of samples) {
      expect(sample.name.startsWith('parley_')).toBe(true)
      expect(Number.isFinite(sample.value) || sample.labels.le === '+Inf').toBe(true)
    }
    const secrets = [team.organizationId, agent.id, voiceAgent, call.callId, session.conversation_id, key]
    for (const id of secrets.filter(Boolean)) expect(text).not.toContain(String(id))
    const bounded = [
      'method',
      'route',
      'status',
      'provider',
      'model',
      'outcome',
      'kind',
      'result',
      'job_name',
      'code',
      'database',
    ]
    const known = [
      ...bounded,
      'direction',
      'state',
      'le',
      'quantile',
      'space',
      'type',
      'version',
      'major',
      'minor',
      'patch',
    ]
    const names = new Set(samples.flatMap((sample) => Object.keys(sample.labels)))
    for (const name of names) expect(known).toContain(name)
  })
})
