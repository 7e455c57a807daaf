import type { KnowledgeSource } from '@parley/shared'
import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatCall, createChatSession, sendChat, textOf } from '../../test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { insertCall } from '../calls/store.ts'

const WORKER_TOKEN = 'w'.repeat(40)
let llm: FakeLlm
let server: TestServer

beforeAll(async () => {
  llm = await startFakeLlm()
  server = await startTestServer({
    env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test-llm-key', WORKER_TOKEN: WORKER_TOKEN },
  })
})
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
})

const v1 = (key: string, path: string, init: { method?: string; json?: unknown } = {}) =>
  server.request(path, { ...init, headers: { 'x-api-key': key } })

describe('an agent answering from its knowledge sources', () => {
  it('gives the model the best passages, streams their sources and keeps them in history', async () => {
    const team = await createTeam(server)
    const key = await secretKeyFor(server, team.owner)
    const created = await v1(key, '/v1/knowledge/sources', {
      method: 'POST',
      json: {
        kind: 'text',
        title: 'Shop policies',
        text: '# Opening hours\n\nWe are open Monday to Friday from nine to five.\n\n# Returns\n\nKettles may be returned within thirty days.',
      },
    })
    const source = ((await created.json()) as { data: KnowledgeSource }).data
    await expect
      .poll(
        async () =>
          ((await (await v1(key, `/v1/knowledge/sources/${source.id}`)).json()) as { data: KnowledgeSource })
            .data.status,
        { timeout: 45_000, interval: 50 },
      )
      .toBe('ready')

    const other = await createTeam(server)
    const foreign = await v1(await secretKeyFor(server, other.owner), '/v1/knowledge/sources', {
      method: 'POST',
      json: { kind: 'text', title: 'Theirs', text: 'Secret things.' },
    })
    const foreignId = ((await foreign.json()) as { data: KnowledgeSource }).data.id
    const agentBody = { name: 'Shop Agent', agentArchitecture: 'text', systemPrompt: 'You help shoppers.' }
    const refused = await v1(key, '/v1/agents', {
      method: 'POST',
      json: { ...agentBody, knowledgeSourceIds: [foreignId] },
    })
    expect(refused.status).toBe(400)
    expect(await refused.text()).toContain('knowledgeSourceIds')

    const agentResponse = await v1(key, '/v1/agents', {
      method: 'POST',
      json: { ...agentBody, knowledgeSourceIds: [source.id] },
    })
    expect(agentResponse.status).toBe(201)
    const agent = ((await agentResponse.json()) as { data: { id: string } }).data
    const fetched = (
      (await (await v1(key, `/v1/agents/${agent.id}`)).json()) as { data: { knowledgeSourceIds: string[] } }
    ).data
    expect(fetched.knowledgeSourceIds).toEqual([source.id])

    const session = await createChatSession(server, { key, agentId: agent.id })
    llm.queue({ text: ['We are open ', 'Monday to Friday.'] })
    const { events } = await sendChat(server, session, 'When are you open?')
    expect(textOf(events)).toBe('We are open Monday to Friday.')
    const names = events.map(({ event }) => event)
    expect(names.slice(0, 3)).toEqual(['stream_start', 'sources', 'chunk'])
    const sources = events.find(({ event }) => event === 'sources')?.data.sources as {
      title: string
      snippet: string
    }[]
    expect(sources[0]).toMatchObject({ title: 'Shop policies › Opening hours', url: null })
    expect(sources[0]?.snippet).toContain('Monday to Friday')
    const system = llm.requests.at(-1)?.messages[0]?.content as string
    expect(system).toContain('You help shoppers.')
    expect(system).toContain('say that you do not know')
    expect(system).toContain('We are open Monday to Friday from nine to five.')

    const history = (await (await chatCall(server, session, 'history')).json()) as {
      messages: { role: string; sources?: unknown[] }[]
    }
    expect(history.messages.find(({ role }) => role === 'assistant')?.sources).toEqual(sources)
    const detail = (await (await v1(key, `/v1/conversations/${session.conversation_id}`)).json()) as {
      data: { messages: { role: string; sources: unknown[] | null }[] }
    }
    expect(detail.data.messages.map((message) => message.sources)).toEqual([null, sources])

    // Exports keep them: each reply's in NDJSON, the conversation's distinct ones in a CSV column.
    const exported = async (format: 'ndjson' | 'csv') => {
      const studio = { token: team.owner.session.token }
      const created = await server.request('/api/export', {
        method: 'POST',
        ...studio,
        json: { kind: 'conversations', format },
      })
      expect(created.status).toBe(202)
      const { id } = (await created.json()) as { id: string }
      await expect
        .poll(
          async () =>
            ((await (await server.request(`/api/export/${id}`, studio)).json()) as { status: string }).status,
          { timeout: 15_000 },
        )
        .toBe('completed')
      return (await server.request(`/api/export/${id}/download`, studio)).text()
    }
    const [record] = (await exported('ndjson'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; messages: { role: string; sources?: unknown }[] })
    expect(record?.id).toBe(session.conversation_id)
    expect(record?.messages.map((message) => message.sources)).toEqual([undefined, sources])
    const [header, row] = parse(await exported('csv')) as string[][]
    expect(row?.[header?.indexOf('sources') ?? -1]).toBe(sources.map(({ title }) => title).join('\n'))

    // A question the sources do not answer: no passages, no sources event.
    llm.queue({ text: ['I do not know.'] })
    const { events: unanswered } = await sendChat(server, session, 'zebra xylophone')
    expect(unanswered.some(({ event }) => event === 'sources')).toBe(false)

    // Deleting the source takes it off the agent.
    expect((await v1(key, `/v1/knowledge/sources/${source.id}`, { method: 'DELETE' })).status).toBe(200)
    const after = (
      (await (await v1(key, `/v1/agents/${agent.id}`)).json()) as { data: { knowledgeSourceIds: string[] } }
    ).data
    expect(after.knowledgeSourceIds).toEqual([])
  }, 60_000)

  it("gives the voice worker a call's passages from its live agent's sources", async () => {
    const team = await createTeam(server)
    const key = await secretKeyFor(server, team.owner)
    const created = await v1(key, '/v1/knowledge/sources', {
      method: 'POST',
      json: {
        kind: 'text',
        title: 'Manual',
        text: '# Descaling\n\nDescale the kettle monthly with vinegar.',
      },
    })
    const source = ((await created.json()) as { data: KnowledgeSource }).data
    await expect
      .poll(
        async () =>
          ((await (await v1(key, `/v1/knowledge/sources/${source.id}`)).json()) as { data: KnowledgeSource })
            .data.status,
        { timeout: 45_000, interval: 50 },
      )
      .toBe('ready')
    const agent = await makeAgent(server, team.owner, {
      agentArchitecture: 'pipeline',
      knowledgeSourceIds: [source.id],
    })
    const call = await insertCall(server.ctx.db, {
      id: `call-${source.id}`,
      organizationId: team.organizationId,
      agentId: agent.id,
      userId: null,
      keyId: null,
      roomName: `room-${source.id}`,
      architecture: 'pipeline',
      direction: 'web',
      phoneNumber: null,
      batchJobId: null,
      batchContactId: null,
    })
    const search = (callId: string, token = WORKER_TOKEN) =>
      server.request(`/v1/calls/${callId}/knowledge/search`, {
        method: 'POST',
        token,
        json: { query: 'How do I descale it?' },
      })
    const found = await search(call.id)
    expect(found.status).toBe(200)
    const body = (await found.json()) as {
      passages: { title: string }[]
      sources: unknown[]
      instruction: string
    }
    expect(body.passages[0]?.title).toBe('Manual › Descaling')
    expect(body.instruction).toContain('Descale the kettle monthly')
    expect((await search(call.id, 'x'.repeat(40))).status).toBe(401)
    expect((await search('no-such-call')).status).toBe(404)
  }, 60_000)
})
