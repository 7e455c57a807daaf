import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { RouteTable } from '../src/http/route-table.ts'
import { PASSWORD, signUp, uniqueEmail } from './helpers/accounts.ts'
import { type FakeLiveKit, postLiveKitWebhook, startFakeLiveKit } from './helpers/fake-livekit.ts'
import { type FakeLlm, startFakeLlm } from './helpers/fake-llm.ts'
import { type HttpTarget, startHttpTarget } from './helpers/http-target.ts'
import { createOpenApiCheck, type OpenApiCheck } from './helpers/openapi-check.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/**
 * The OpenAPI document and the server agree: real requests, on every operation, the error paths
 * included, each checked against the document the server serves (helpers/openapi-check.ts: the
 * operation and status documented, the media type as served, every JSON body and stream event
 * fitting its schema, rate-limit headers present, request bodies accepted exactly when the
 * document allows them). One server; the LLM and LiveKit are small fakes on loopback.
 */

const WORKER_TOKEN = 'worker-token-for-the-agreement-test'
const NO_SUCH_ID = '01JZZZZZZZZZZZZZZZZZZZZZZZ'

let server: TestServer
let llm: FakeLlm
let livekit: FakeLiveKit
let table: RouteTable | undefined
let receiver: HttpTarget
let check: OpenApiCheck

type Init = {
  /** The refusal depends on stored state the document cannot state (the field is described). */
  refusedByState?: boolean
  method?: string
  json?: unknown
  token?: string
  headers?: Record<string, string>
  body?: BodyInit
}

/** A request through the test server, checked against the document; answers status and parsed body. */
const call = async (path: string, init: Init = {}) => {
  const { refusedByState: _, ...request } = init
  const response = await server.request(path, request as RequestInit & { json?: unknown; token?: string })
  const text = await response.text()
  const contentType =
    init.json !== undefined
      ? 'application/json'
      : Object.entries(init.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1]
  check.check({
    method: init.method ?? 'GET',
    url: path,
    requestContentType: contentType,
    requestBody: init.refusedByState ? undefined : init.json,
    status: response.status,
    headers: response.headers,
    text,
  })
  // biome-ignore lint/suspicious/noExplicitAny: each step reads the fields it needs from the answer.
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    body = text
  }
  return { status: response.status, body, text }
}

beforeAll(async () => {
  llm = await startFakeLlm()
  livekit = await startFakeLiveKit()
  receiver = await startHttpTarget((_request, response) => {
    response.writeHead(200).end()
  })
  server = await startTestServer({
    env: {
      ...livekit.env,
      LLM_BASE_URL: llm.baseUrl,
      WORKER_TOKEN,
      OUTBOUND_ALLOW_HOSTS: `functions.example.test,${receiver.hostAndPort}`,
    },
    extendApp: ({ routes }) => {
      table = routes
    },
  })
  check = createOpenApiCheck(await (await server.request('/v1/openapi.json')).json())
})
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
  await livekit?.close()
  await receiver?.close()
})

describe('the OpenAPI document and the server', () => {
  it('agree on every operation, success and error paths alike', async () => {
    // --- accounts and the studio
    const ownerEmail = uniqueEmail('owner')
    const owner = (
      await call('/api/auth/signup', {
        method: 'POST',
        json: { organizationName: 'Acme', name: 'Ada', email: ownerEmail, password: PASSWORD },
      })
    ).body
    await call('/api/auth/login', { method: 'POST', json: { email: ownerEmail, password: PASSWORD } })
    const orgId = owner.organization.id
    const studio = owner.token
    await call('/api/auth/signup', { method: 'POST', json: { email: 'not-an-email' } })
    await call('/api/auth/login', {
      method: 'POST',
      json: { email: uniqueEmail(), password: 'wrong password' },
    })
    await call('/api/auth/session', { token: studio })
    await call('/api/auth/switch-organization', {
      method: 'POST',
      token: studio,
      json: { organizationId: orgId },
    })
    await call(`/api/organizations/${orgId}/members`, { token: studio })
    const inviteeEmail = uniqueEmail('invitee')
    await call(`/api/organizations/${orgId}/members`, {
      method: 'POST',
      token: studio,
      json: { email: inviteeEmail, role: 'member' },
    })
    await call(`/api/organizations/${orgId}/identity-secret`, { token: studio })
    await call(`/api/organizations/${orgId}/identity-secret/rotate`, { method: 'POST', token: studio })
    const invitee = await signUp(server, { email: inviteeEmail })
    const invitations = await call('/api/invitations', { token: invitee.token })
    const [first] = invitations.body.data ?? invitations.body.invitations ?? []
    if (first) await call(`/api/invitations/${first.id}/decline`, { method: 'POST', token: invitee.token })
    await call(`/api/invitations/${NO_SUCH_ID}/accept`, { method: 'POST', token: invitee.token })
    await call(`/api/organizations/${orgId}/members`, {
      method: 'POST',
      token: studio,
      json: { email: inviteeEmail, role: 'admin' },
    })
    const again = await call('/api/invitations', { token: invitee.token })
    const [second] = again.body.data ?? again.body.invitations ?? []
    if (second) await call(`/api/invitations/${second.id}/accept`, { method: 'POST', token: invitee.token })
    await call(`/api/organizations/${orgId}/ledger`, { token: studio })
    await call(`/api/organizations/${orgId}/provider-keys`, { token: studio })
    await call(`/api/organizations/${orgId}/provider-keys`, {
      method: 'PUT',
      token: studio,
      json: { keys: { openai: 'sk-test-12345678' } },
    })
    await call(`/api/organizations/${orgId}/provider-keys`, {
      method: 'PUT',
      token: studio,
      json: { keys: { openai: null } },
    })

    // --- keys
    const created = await call('/api/api-keys', {
      method: 'POST',
      token: studio,
      json: { name: 'Server', type: 'secret' },
    })
    const key = created.body.key as string
    const widget = await call('/api/api-keys', {
      method: 'POST',
      token: studio,
      json: { name: 'Widget', type: 'widget', allowedDomains: ['shop.example.com'] },
    })
    await call('/api/api-keys', { token: studio })
    await call(`/api/api-keys/${widget.body.id}`, {
      method: 'PATCH',
      token: studio,
      json: { name: 'Shop widget' },
    })
    await call(`/api/api-keys/${widget.body.id}/disable`, { method: 'POST', token: studio })
    await call(`/api/api-keys/${widget.body.id}/enable`, { method: 'POST', token: studio })
    const spare = await call('/api/api-keys', {
      method: 'POST',
      token: studio,
      json: { name: 'Spare', type: 'secret' },
    })
    await call(`/api/api-keys/${spare.body.id}/revoke`, { method: 'POST', token: studio })
    await call(`/api/api-keys/${spare.body.id}/enable`, { method: 'POST', token: studio })
    const asKey = { 'x-api-key': key }

    // --- operator
    const admin = server.config.adminToken
    await call('/admin/organizations', { token: admin })
    await call(`/admin/organizations/${orgId}`, { method: 'PATCH', token: admin, json: { tier: 'pro' } })
    await call(`/admin/organizations/${orgId}/credits`, {
      method: 'POST',
      token: admin,
      json: { amountUsd: 50, reason: 'agreement test' },
    })
    await call(`/admin/organizations/${orgId}/ledger`, { token: admin })

    // --- v1 organization, catalogue, agents
    await call('/v1/organization', { headers: asKey })
    await call('/v1/organization', { headers: { authorization: `Bearer ${key}` } })
    await call('/v1/organization', { headers: { 'x-api-key': widget.body.key } })
    const catalogue = await call('/v1/catalogue', { headers: asKey })
    const defaults = catalogue.body.data.defaults
    const textAgent = await call('/v1/agents', {
      method: 'POST',
      headers: asKey,
      json: { name: 'Chat Agent', agentArchitecture: 'text', systemPrompt: 'You help.', language: 'en' },
    })
    const agentId = textAgent.body.data.id as string
    const voiceAgent = await call('/v1/agents', {
      method: 'POST',
      headers: asKey,
      json: {
        name: 'Voice Agent',
        agentArchitecture: 'pipeline',
        systemPrompt: 'You help.',
        model: defaults.model,
        stt: defaults.stt,
        tts: defaults.tts,
        voiceId: defaults.voiceId,
      },
    })
    const voiceAgentId = voiceAgent.body.data.id as string
    // The document's per-architecture rule: a pipeline agent without stt and tts is refused.
    await call('/v1/agents', {
      method: 'POST',
      headers: asKey,
      json: { name: 'No voice', agentArchitecture: 'pipeline', systemPrompt: 'x', model: defaults.model },
    })
    await call('/v1/agents', {
      method: 'POST',
      headers: asKey,
      json: { name: 'Bad', agentArchitecture: 'text', language: 'fr' },
    })
    await call('/v1/agents', {
      method: 'POST',
      headers: asKey,
      json: { name: 'Typo', agentArchitecture: 'text', sytemPrompt: 'x' },
    })
    await call('/v1/agents', {
      method: 'POST',
      headers: { ...asKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(2_000_000) }),
    })
    await call('/v1/agents?limit=5', { headers: asKey })
    await call(`/v1/agents/${agentId}`, { headers: asKey })
    await call(`/v1/agents/${NO_SUCH_ID}`, { headers: asKey })
    await call(`/v1/agents/${agentId}`, { method: 'PATCH', headers: asKey, json: { active: true } })
    await call(`/v1/agents/${voiceAgentId}`, { method: 'PATCH', headers: asKey, json: { active: true } })
    await call(`/v1/agents/${agentId}`, {
      method: 'PATCH',
      headers: asKey,
      json: { agentArchitecture: 'pipeline' },
      refusedByState: true,
    })
    await call(`/v1/agents/${agentId}`, {
      method: 'PATCH',
      headers: asKey,
      json: { agentArchitecture: 'text' },
    })
    await call(`/v1/agents/${agentId}`, {
      method: 'PUT',
      headers: asKey,
      json: { description: 'Answers orders' },
    })
    await call(`/api/agents/${agentId}`, {
      method: 'PUT',
      token: studio,
      json: { description: 'Answers orders.' },
    })
    await call(`/v1/agents/${agentId}/webhook-secret`, { method: 'POST', headers: asKey })

    // --- agent versions: the studio's save above is a draft to publish
    await call(`/v1/agents/${agentId}/draft`, { headers: asKey })
    await call(`/v1/agents/${agentId}/publish`, { method: 'POST', headers: asKey, json: { note: 'Orders' } })
    await call(`/v1/agents/${agentId}/publish`, {
      method: 'POST',
      headers: asKey,
      json: {},
      refusedByState: true,
    })
    await call(`/v1/agents/${agentId}/versions`, { headers: asKey })
    await call(`/v1/agents/${agentId}/versions/1`, { headers: asKey })
    await call(`/v1/agents/${agentId}/versions/99`, { headers: asKey })
    await call(`/v1/agents/${agentId}/versions/2/diff?against=1`, { headers: asKey })
    await call(`/v1/agents/${agentId}/versions/1/restore`, { method: 'POST', headers: asKey })

    // --- custom functions and webhooks
    const fn = await call(`/api/custom-functions/${agentId}`, {
      method: 'POST',
      headers: asKey,
      json: {
        name: 'lookup_order',
        label: 'Look up an order',
        endpoint: 'https://functions.example.test/lookup',
      },
    })
    const functionId = fn.body?.data?.id ?? fn.body?.id ?? NO_SUCH_ID
    await call(`/api/custom-functions?agentId=${agentId}`, { headers: asKey })
    await call(`/api/custom-functions/${agentId}`, {
      method: 'PUT',
      headers: asKey,
      json: { id: functionId, label: 'Find an order' },
    })
    await call(`/api/custom-functions/${agentId}/${functionId}/test`, {
      method: 'POST',
      headers: asKey,
      json: { arguments: {} },
    })
    await call(`/api/custom-functions/${agentId}/${NO_SUCH_ID}/test`, {
      method: 'POST',
      headers: asKey,
      json: { arguments: {} },
    })
    await call(`/api/custom-functions/${agentId}?functionId=${functionId}`, {
      method: 'DELETE',
      headers: asKey,
    })
    await call(`/v1/agents/${agentId}/webhook/test`, { method: 'POST', headers: asKey })
    await call(`/v1/agents/${agentId}`, {
      method: 'PATCH',
      headers: asKey,
      json: { webhookUrl: `${receiver.origin}/hooks` },
    })
    await call(`/v1/agents/${agentId}/webhook/test`, { method: 'POST', headers: asKey })
    const deliveries = await call(`/v1/agents/${agentId}/webhook-deliveries`, { headers: asKey })
    const deliveryId = deliveries.body.data?.[0]?.id as string | undefined
    if (deliveryId)
      await call(`/v1/agents/${agentId}/webhook-deliveries/${deliveryId}/redeliver`, {
        method: 'POST',
        headers: asKey,
      })
    await call(`/v1/agents/${agentId}/webhook-deliveries/${NO_SUCH_ID}/redeliver`, {
      method: 'POST',
      headers: asKey,
    })

    // --- text chat: session, streamed reply, history, stop, end
    await call('/v1/chat/sessions', { method: 'POST', headers: asKey, json: { agent_id: NO_SUCH_ID } })
    await call('/v1/chat/sessions', { method: 'POST', headers: asKey, json: { agent_id: voiceAgentId } })
    await call('/v1/chat/sessions', {
      method: 'POST',
      headers: { 'x-api-key': widget.body.key, origin: 'https://evil.example.net' },
      json: { agent_id: agentId },
    })
    const session = await call('/v1/chat/sessions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      json: { agent_id: agentId, user_identifier: 'user-42' },
    })
    const chatPath = `/v1/chat/sessions/${session.body.conversation_id}`
    const asSession = session.body.session_token as string
    await call(`${chatPath}/messages`, { method: 'POST', token: asSession, json: { message: 'Hello there' } })
    await call(`${chatPath}/messages`, {
      method: 'POST',
      token: asSession,
      json: { message: 'x'.repeat(10_001) },
    })
    await call(`${chatPath}/messages`, {
      method: 'POST',
      token: asSession,
      json: { message: 'Hi', extra: 1 },
    })
    await call(`${chatPath}/messages`, { method: 'POST', token: 'not-a-token', json: { message: 'Hi' } })
    await call(`${chatPath}/messages?limit=10`, { token: asSession })
    await call(`${chatPath}/messages/stop`, { method: 'POST', token: asSession })
    await call(`${chatPath}/end`, { method: 'POST', token: asSession })

    // --- voice: a session, the worker's calls, LiveKit's webhook
    await call('/v1/chat/voice-sessions', { method: 'POST', headers: asKey, json: { agent_id: agentId } })
    await call('/v1/chat/voice-sessions', {
      method: 'POST',
      headers: asKey,
      json: { agent_id: voiceAgentId },
    })
    const calls = await call('/v1/calls', { headers: asKey })
    const callId = (calls.body.data?.[0]?.id as string | undefined) ?? NO_SUCH_ID
    const asWorker = { authorization: `Bearer ${WORKER_TOKEN}` }
    await call(`/v1/calls/${callId}/setup`, { headers: asWorker })
    await call(`/v1/calls/${callId}/transcript`, {
      method: 'POST',
      headers: asWorker,
      json: { lines: [{ role: 'user', content: 'Hello' }] },
    })
    await call(`/v1/calls/${callId}/handoff`, { method: 'POST', headers: asWorker, json: { agentId } })
    await call(`/v1/calls/${callId}/transfer`, {
      method: 'POST',
      headers: asWorker,
      json: { destination: 'Nobody here' },
    })
    await call(`/v1/calls/${callId}`, { headers: asKey })
    await call(`/v1/calls/${callId}`, { method: 'DELETE', headers: asKey })
    await call(`/v1/calls/${callId}/end`, {
      method: 'POST',
      headers: asWorker,
      json: { reason: 'agent_ended' },
    })
    await call(`/v1/calls/${callId}`, { method: 'DELETE', headers: asKey })
    const hook = await postLiveKitWebhook(server.url, livekit, {
      event: 'room_finished',
      room: { name: 'unknown-room' },
    })
    check.check({
      method: 'POST',
      url: '/livekit/webhook',
      status: hook.status,
      headers: hook.headers,
      text: await hook.text(),
    })
    await call('/livekit/webhook', {
      method: 'POST',
      headers: { 'content-type': 'application/webhook+json' },
      body: '{}',
    })

    // --- conversations, analytics, deletions
    await call('/v1/conversations?limit=5', { headers: asKey })
    await call(`/v1/conversations/${session.body.conversation_id}`, { headers: asKey })
    await call(`/v1/conversations/${session.body.conversation_id}`, { method: 'DELETE', headers: asKey })
    await call('/v1/analytics', { headers: asKey })
    await call('/v1/analytics?from=2026-11-01&to=2026-11-30', { headers: asKey })
    await call('/v1/deletions', { headers: asKey })

    // --- phone numbers and batch calling
    const number = await call('/v1/phone-numbers', {
      method: 'POST',
      headers: asKey,
      json: { number: '+14155550100', outboundAgentId: voiceAgentId, sipTrunkId: 'ST_test' },
    })
    const numberId = number.body.data.id as string
    await call('/v1/phone-numbers', {
      method: 'POST',
      headers: asKey,
      json: { number: '12', sipTrunkId: 'ST_test' },
    })
    await call('/v1/phone-numbers', { headers: asKey })
    await call(`/v1/phone-numbers/${numberId}`, { headers: asKey })
    await call(`/v1/phone-numbers/${numberId}`, { method: 'PATCH', headers: asKey, json: { label: 'Sales' } })
    const batchBody = {
      fromPhoneNumberId: numberId,
      name: 'Spring renewals',
      contacts: [{ phone: '+14155552671', name: 'Ada' }, { phone: '+14155552672' }],
    }
    await call('/batch/preview', { method: 'POST', headers: asKey, json: batchBody })
    await call('/batch/create', {
      method: 'POST',
      headers: asKey,
      json: { ...batchBody, contacts: [{ phone: 'nope' }] },
    })
    await call('/batch/create', { method: 'POST', headers: asKey, json: { ...batchBody, contacts: [] } })
    const form = new FormData()
    form.append('fromPhoneNumberId', numberId)
    form.append('name', 'From a file')
    form.append('file', new Blob(['phone,name\n+14155552673,Grace\n'], { type: 'text/csv' }), 'contacts.csv')
    const fromCsv = await server.request('/batch/create', { method: 'POST', headers: asKey, body: form })
    check.check({
      method: 'POST',
      url: '/batch/create',
      status: fromCsv.status,
      headers: fromCsv.headers,
      text: await fromCsv.text(),
    })
    const job = await call('/batch/create', { method: 'POST', headers: asKey, json: batchBody })
    const jobId = (job.body.batchJobId as string | undefined) ?? NO_SUCH_ID
    await call('/batch?limit=5', { headers: asKey })
    await call(`/batch/${jobId}`, { headers: asKey })
    await call(`/batch/${jobId}/contacts`, { headers: asKey })
    await call(`/batch/${jobId}/pause`, { method: 'POST', headers: asKey })
    await call(`/batch/${jobId}/resume`, { method: 'POST', headers: asKey })
    await call(`/batch/${jobId}/cancel`, { method: 'POST', headers: asKey })
    await call(`/batch/${jobId}/events`, { headers: asKey })
    await call(`/batch/${jobId}/retry-failed`, { method: 'POST', headers: asKey })
    await call(`/batch/${jobId}/pause`, { method: 'POST', headers: asKey })
    // One call on request: a busy line, so its event stream ends; its hang-up then answers 409.
    livekit.scriptSip('+14155552680', { result: 'busy' })
    const placed = await call('/v1/calls', {
      method: 'POST',
      headers: { ...asKey, 'idempotency-key': 'agreement-call-1' },
      json: { fromPhoneNumberId: numberId, to: '+14155552680', variables: { name: 'Ada' } },
    })
    await call('/v1/calls', {
      method: 'POST',
      headers: asKey,
      json: { fromPhoneNumberId: numberId, to: 'nope' },
    })
    const placedId = (placed.body.data?.id as string | undefined) ?? NO_SUCH_ID
    await call(`/v1/calls/${placedId}/events`, { headers: asKey })
    await call(`/v1/calls/${placedId}/hangup`, { method: 'POST', headers: asKey })
    await call(`/v1/calls/${NO_SUCH_ID}/hangup`, { method: 'POST', headers: asKey })
    await call(`/v1/calls/${NO_SUCH_ID}/events`, { headers: asKey })
    // --- do-not-call (opt_out of the placed call: listed, or call_ended once it is hung up)
    await call(`/v1/calls/${placedId}/opt-out`, { method: 'POST', headers: asWorker, json: {} })
    await call(`/v1/calls/${NO_SUCH_ID}/opt-out`, { method: 'POST', headers: asWorker, json: {} })
    await call('/v1/do-not-call', {
      method: 'POST',
      headers: asKey,
      json: { phoneNumber: '+14155552681', note: 'Asked by email' },
    })
    await call('/v1/do-not-call', { method: 'POST', headers: asKey, json: { phoneNumber: '+10005550000' } })
    await call('/v1/do-not-call?phoneNumber=%2B14155552681', { headers: asKey })
    await call('/v1/do-not-call/import', {
      method: 'POST',
      headers: asKey,
      json: { phoneNumbers: ['+14155552682', 'not a number'] },
    })
    const dncForm = new FormData()
    dncForm.append('file', new Blob(['phone\n+14155552683\n'], { type: 'text/csv' }), 'dnc.csv')
    expect(
      (await server.request('/v1/do-not-call/import', { method: 'POST', headers: asKey, body: dncForm }))
        .status,
    ).toBe(200)
    await call('/v1/do-not-call/+14155552681', { method: 'DELETE', headers: asKey })
    await call('/v1/do-not-call/+14155552681', { method: 'DELETE', headers: asKey })
    await call(`/v1/phone-numbers/${numberId}`, { method: 'DELETE', headers: asKey })

    // --- exports
    const started = await call('/api/export', {
      method: 'POST',
      token: studio,
      json: { kind: 'ledger', format: 'csv' },
    })
    await call(`/api/export/${started.body.id}`, { token: studio })
    await vi.waitFor(
      async () => {
        const progress = await server.request(`/api/export/${started.body.id}`, { token: studio })
        expect(((await progress.json()) as { status: string }).status).toBe('completed')
      },
      { timeout: 15_000 },
    )
    await call(`/api/export/${started.body.id}/download`, { token: studio })
    await call(`/api/export/${NO_SUCH_ID}/download`, { token: studio })

    // --- system
    await call('/healthz')
    await call('/readyz')
    await call('/v1/openapi.json')

    // --- every operation once more: no credential, and a well-formed body with an unknown field
    const routes = table?.definitions ?? []
    const credentialOf: Record<string, Record<string, string>> = {
      none: {},
      studio: { authorization: `Bearer ${studio}` },
      operator: { authorization: `Bearer ${admin}` },
      apiKey: asKey,
      chatSessionCreator: asKey,
      voiceSessionCreator: asKey,
      chatSession: { authorization: `Bearer ${asSession}` },
      worker: asWorker,
    }
    for (const route of routes) {
      const path = route.path.replace(/\{\w+\}/g, NO_SUCH_ID)
      const method = route.method.toUpperCase()
      const hasBody = route.body !== undefined
      await call(path, { method, ...(hasBody ? { json: {} } : {}) })
      await call(path, {
        method,
        headers: credentialOf[route.auth] ?? {},
        ...(hasBody ? { json: { surelyUnknown: true } } : {}),
      })
    }

    // --- agents deleted last
    await call(`/v1/agents/${agentId}`, { method: 'DELETE', headers: asKey })

    const unseen = check.operations().filter((id) => !check.seen.has(id))
    process.stdout.write(
      `agreement: ${check.count()} exchanges over ${check.seen.size} of ${check.operations().length} operations, ${check.violations.length} violations\n`,
    )
    if (process.env.AGREEMENT_REPORT)
      for (const [id, statuses] of check.seen) process.stdout.write(`${id} ${[...statuses].join(',')}\n`)
    expect(unseen).toEqual([])
    expect(check.violations).toEqual([])
    expect(check.count()).toBeGreaterThan(200)
  }, 120_000)
})
