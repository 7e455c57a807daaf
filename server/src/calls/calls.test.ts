import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FakeLiveKit, postLiveKitWebhook, startFakeLiveKit } from '../../test/helpers/fake-livekit.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { startVoiceSession } from '../../test/helpers/voice.ts'

const WORKER_TOKEN = randomBytes(24).toString('hex')
let fake: FakeLiveKit
let server: TestServer
let team: Awaited<ReturnType<typeof createTeam>>
let key: string

beforeAll(async () => {
  fake = await startFakeLiveKit()
  server = await startTestServer({
    env: { ...fake.env, WORKER_TOKEN },
  })
  team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
})
afterAll(async () => {
  await server?.destroy()
  await fake?.close()
})

const api = (path: string, apiKey = key) => server.request(path, { token: apiKey })
const worker = (path: string, init: { json?: unknown; token?: string; method?: string } = {}) =>
  server.request(path, { method: init.method ?? 'POST', json: init.json, token: init.token ?? WORKER_TOKEN })

describe('GET /v1/calls', () => {
  it('pages the organization’s calls newest first, filtered by agent and status', async () => {
    const first = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
    const second = await makeAgent(server, team.owner, { agentArchitecture: 'realtime' })
    const a = await startVoiceSession(server, { key, agentId: first.id })
    const b = await startVoiceSession(server, { key, agentId: first.id })
    const c = await startVoiceSession(server, { key, agentId: second.id })
    await postLiveKitWebhook(server.url, fake, { event: 'room_finished', room: { name: a.room_name } })

    const all = await (await api('/v1/calls?limit=2')).json()
    expect(all.pagination).toEqual({ page: 1, total: 3, hasNext: true })
    expect(all.data.map((call: { id: string }) => call.id)).toEqual([c.callId, b.callId])
    const page2 = await (await api('/v1/calls?limit=2&page=2')).json()
    expect(page2.data.map((call: { id: string }) => call.id)).toEqual([a.callId])
    expect(page2.pagination.hasNext).toBe(false)

    const ofFirst = await (await api(`/v1/calls?agentId=${first.id}`)).json()
    expect(ofFirst.data.map((call: { id: string }) => call.id)).toEqual([b.callId, a.callId])
    const ended = await (await api('/v1/calls?status=ended')).json()
    expect(ended.data).toHaveLength(1)
    expect(ended.data[0]).toMatchObject({
      id: a.callId,
      agentId: first.id,
      userId: team.owner.userId,
      roomName: a.room_name,
      architecture: 'pipeline',
      direction: 'web',
      status: 'ended',
      endReason: 'room_finished',
      costUsd: expect.any(Number),
      batchJobId: null,
    })
    expect((await api('/v1/calls?status=nope')).status).toBe(400)
    expect((await api('/v1/calls?limit=101')).status).toBe(400)

    const other = await createTeam(server)
    const otherKey = await secretKeyFor(server, other.owner)
    expect((await (await api('/v1/calls', otherKey)).json()).data).toEqual([])
  })
})

describe('call transcripts and the worker', () => {
  it('the worker appends lines with WORKER_TOKEN; GET /v1/calls/{id} shows them in order', async () => {
    const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    const path = `/v1/calls/${session.callId}/transcript`
    const first = await worker(path, {
      json: {
        lines: [
          { role: 'assistant', content: 'Hello, how can I help?', spokenAt: '2026-01-01T10:00:00.000Z' },
          { role: 'user', content: 'Where is my order?' },
        ],
      },
    })
    expect(first.status).toBe(200)
    expect(await first.json()).toEqual({ success: true, data: { appended: 2, total: 2 } })
    const second = await worker(path, {
      json: { lines: [{ role: 'assistant', content: 'Let me look.', interrupted: true }] },
    })
    expect((await second.json()).data).toEqual({ appended: 1, total: 3 })

    const detail = await (await api(`/v1/calls/${session.callId}`)).json()
    expect(detail.data).toMatchObject({ id: session.callId, status: 'active' })
    expect(detail.data.transcript).toEqual([
      {
        position: 1,
        role: 'assistant',
        content: 'Hello, how can I help?',
        spokenAt: '2026-01-01T10:00:00.000Z',
        interrupted: false,
      },
      {
        position: 2,
        role: 'user',
        content: 'Where is my order?',
        spokenAt: expect.any(String),
        interrupted: false,
      },
      // The caller cut this turn off.
      {
        position: 3,
        role: 'assistant',
        content: 'Let me look.',
        spokenAt: expect.any(String),
        interrupted: true,
      },
    ])
  })

  it('stores a retried batch once: lines and tool calls carry the worker’s ids', async () => {
    const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    const path = `/v1/calls/${session.callId}/transcript`
    const batch = {
      lines: [
        { id: 'line-1', role: 'user', content: 'Where is order A17?' },
        { id: 'line-2', role: 'assistant', content: 'It has shipped.' },
      ],
      toolCalls: [
        {
          id: 'item_call_1',
          kind: 'function',
          name: 'lookup_order',
          arguments: { orderNumber: 'A17' },
          status: 'completed',
          calledAt: '2026-01-01T10:00:01.000Z',
        },
      ],
    }
    expect((await (await worker(path, { json: batch })).json()).data).toEqual({ appended: 2, total: 2 })
    // The answer was lost and the worker sends the batch again, with one more line.
    const retried = { ...batch, lines: [...batch.lines, { id: 'line-3', role: 'user', content: 'Thanks.' }] }
    expect((await (await worker(path, { json: retried })).json()).data).toEqual({ appended: 1, total: 3 })
    // Lines without ids (an older worker) are appended as before.
    expect(
      (await (await worker(path, { json: { lines: [{ role: 'assistant', content: 'Bye.' }] } })).json()).data,
    ).toEqual({ appended: 1, total: 4 })

    const detail = (await (await api(`/v1/calls/${session.callId}`)).json()).data
    expect(detail.transcript.map((line: { content: string }) => line.content)).toEqual([
      'Where is order A17?',
      'It has shipped.',
      'Thanks.',
      'Bye.',
    ])
    expect(detail.toolCalls).toEqual([
      {
        kind: 'function',
        name: 'lookup_order',
        arguments: { orderNumber: 'A17' },
        status: 'completed',
        targetAgentId: null,
        createdAt: '2026-01-01T10:00:01.000Z',
      },
    ])
    const bad = (json: unknown) => worker(path, { json })
    expect((await bad({ lines: [{ id: 'has space', role: 'user', content: 'x' }] })).status).toBe(400)
    expect((await bad({ lines: [{ id: 'x', role: 'user', content: 'x', extra: 1 }] })).status).toBe(400)
    expect((await bad({ toolCalls: [{ ...batch.toolCalls[0], kind: 'unknown' }] })).status).toBe(400)
    expect((await bad({ toolCalls: [{ ...batch.toolCalls[0], arguments: 'x' }] })).status).toBe(400)
    expect((await bad({ lines: [], toolCalls: [] })).status).toBe(400)
  })

  it('refuses a wrong or missing worker token, bad lines, and unknown calls', async () => {
    const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    const path = `/v1/calls/${session.callId}/transcript`
    const lines = { lines: [{ role: 'user', content: 'hi' }] }
    const wrong = await worker(path, { json: lines, token: 'x'.repeat(48) })
    expect(wrong.status).toBe(401)
    expect(await wrong.json()).toMatchObject({ success: false, code: 'invalid_worker_token' })
    expect((await server.request(path, { method: 'POST', json: lines })).status).toBe(401)
    // An API key is not a worker token.
    expect((await worker(path, { json: lines, token: key })).status).toBe(401)
    expect((await worker(path, { json: { lines: [] } })).status).toBe(400)
    expect((await worker(path, { json: { lines: [{ role: 'system', content: 'x' }] } })).status).toBe(400)
    expect((await worker('/v1/calls/no-such-call/transcript', { json: lines })).status).toBe(404)
  })

  it('another organization’s call answers 404', async () => {
    const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
    const session = await startVoiceSession(server, { key, agentId: agent.id })
    const other = await createTeam(server)
    const response = await api(`/v1/calls/${session.callId}`, await secretKeyFor(server, other.owner))
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ success: false, code: 'not_found' })
  })
})

describe('without WORKER_TOKEN', () => {
  it('the worker endpoints refuse everyone', async () => {
    const bare = await startTestServer({ env: fake.env })
    try {
      const response = await bare.request('/v1/calls/any/transcript', {
        method: 'POST',
        token: WORKER_TOKEN,
        json: { lines: [{ role: 'user', content: 'hi' }] },
      })
      expect(response.status).toBe(401)
    } finally {
      await bare.destroy()
    }
  })
})
