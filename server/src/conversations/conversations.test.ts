import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatCall, createChatSession, createTextAgent, sendChat } from '../../test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { createTeam, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

let server: TestServer
let llm: FakeLlm
let key: string
let strangerKey: string
let shopAgent: string
let faqAgent: string
const ids: string[] = []

type Summary = { id: string; agentId: string; status: string; messageCount: number; channels: string[] }

beforeAll(async () => {
  llm = await startFakeLlm()
  server = await startTestServer({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test-llm-key' } })
  const team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
  strangerKey = await secretKeyFor(server, (await createTeam(server)).owner)
  shopAgent = await createTextAgent(server, key, 'Shop')
  faqAgent = await createTextAgent(server, key, 'FAQ')
  // Five conversations, oldest first: three with the shop agent, two with the FAQ agent.
  for (const [agentId, said, user] of [
    [shopAgent, 'Where is my parcel?', 'ada'],
    [faqAgent, 'What are your opening hours?', null],
    [shopAgent, 'I want a refund for the blue mug', 'ada'],
    [faqAgent, 'Do you ship to Karachi?', 'bilal'],
    [shopAgent, 'Thanks!', null],
  ] as const) {
    const session = await createChatSession(server, {
      key,
      agentId,
      ...(user ? { user_identifier: user } : {}),
    })
    llm.queue({ text: ['Sure.'] })
    await sendChat(server, session, said)
    ids.push(session.conversation_id)
  }
  await chatCall(server, { conversation_id: ids[4] as string, session_token: '' }, 'end').catch(
    () => undefined,
  )
})
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
})

const list = async (query: string, as = key) => {
  const response = await server.request(`/v1/conversations${query}`, { headers: { 'x-api-key': as } })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}
const idsOf = (body: Record<string, unknown>) => (body.data as Summary[]).map((row) => row.id)

describe('GET /v1/conversations', () => {
  it('pages newest first with an opaque cursor, without gaps or repeats', async () => {
    const first = await list('?limit=2')
    expect(first.status).toBe(200)
    expect(idsOf(first.body)).toEqual([ids[4], ids[3]])
    const second = await list(`?limit=2&cursor=${first.body.nextCursor}`)
    expect(idsOf(second.body)).toEqual([ids[2], ids[1]])
    const third = await list(`?limit=2&cursor=${second.body.nextCursor}`)
    expect(idsOf(third.body)).toEqual([ids[0]])
    expect(third.body.nextCursor).toBeNull()
    const [row] = first.body.data as Summary[]
    expect(row).toMatchObject({ agentId: shopAgent, messageCount: 2, channels: ['text'] })
  })

  it('filters by agent, user identifier, channel, creation time and words said', async () => {
    expect(idsOf((await list(`?agentId=${faqAgent}`)).body)).toEqual([ids[3], ids[1]])
    expect(idsOf((await list('?userIdentifier=ada')).body)).toEqual([ids[2], ids[0]])
    expect(idsOf((await list('?channel=voice')).body)).toEqual([])
    expect(idsOf((await list('?q=blue%20mug')).body)).toEqual([ids[2]])
    expect(idsOf((await list('?q=karachi')).body)).toEqual([ids[3]])
    const future = new Date(Date.now() + 60_000).toISOString()
    expect(idsOf((await list(`?createdFrom=${encodeURIComponent(future)}`)).body)).toEqual([])
  })

  it('pages rows made within one millisecond exactly once (the cursor keeps microseconds)', async () => {
    const team = await createTeam(server)
    const ownKey = await secretKeyFor(server, team.owner)
    const agent = await createTextAgent(server, ownKey, 'Burst')
    // Seven conversations written in the same millisecond, microseconds apart, as now() writes them.
    await sql`insert into conversations (id, organization_id, agent_id, agent_name, created_at, last_activity_at)
      select 'burst-' || n, ${team.organizationId}, ${agent}, 'Burst',
        timestamptz '2026-03-01T10:00:00.123000Z' + make_interval(secs => n / 1000000.0), now()
      from generate_series(1, 7) n`.execute(server.ctx.db)
    const seen: string[] = []
    let cursor = ''
    for (let page = 0; page < 10; page++) {
      const { body } = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`, ownKey)
      seen.push(...idsOf(body))
      if (!body.nextCursor) break
      cursor = body.nextCursor as string
    }
    expect(seen).toEqual(['burst-7', 'burst-6', 'burst-5', 'burst-4', 'burst-3', 'burst-2', 'burst-1'])
  })

  it('answers 400 naming the field for an unknown filter or a malformed cursor', async () => {
    const unknown = await list('?colour=blue')
    expect(unknown.status).toBe(400)
    expect(JSON.stringify(unknown.body)).toContain('colour')
    const cursor = await list('?cursor=not-a-cursor')
    expect(cursor.status).toBe(400)
    expect(JSON.stringify(cursor.body)).toContain('cursor')
  })

  it('shows another organization none of them: an empty list, and 404 for their ids', async () => {
    expect(idsOf((await list('', strangerKey)).body)).toEqual([])
    const response = await server.request(`/v1/conversations/${ids[0]}`, {
      headers: { 'x-api-key': strangerKey },
    })
    expect(response.status).toBe(404)
  })
})

describe('GET /v1/conversations/{id}', () => {
  it('gives the conversation with its messages, each with its channel and model', async () => {
    const response = await server.request(`/v1/conversations/${ids[2]}`, { headers: { 'x-api-key': key } })
    expect(response.status).toBe(200)
    const { data } = (await response.json()) as {
      data: { messages: Array<Record<string, unknown>>; userIdentifier: string; calls: unknown[] }
    }
    expect(data.userIdentifier).toBe('ada')
    expect(data.messages.map((message) => [message.role, message.content, message.channel])).toEqual([
      ['user', 'I want a refund for the blue mug', 'text'],
      ['assistant', 'Sure.', 'text'],
    ])
    expect(data.messages[1]).toMatchObject({ model: 'gpt-4o-mini', fallbackFrom: null, status: 'complete' })
    expect(data.calls).toEqual([])
  })
})
