import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatCall, createChatSession, sendChat } from '../../test/helpers/chat.ts'
import { postLiveKitWebhook } from '../../test/helpers/fake-livekit.ts'
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startVoiceSession, startVoiceStack, type VoiceStack } from '../../test/helpers/voice.ts'

/**
 * What owners read and receive about their conversations and calls: the agent's analysis schema
 * filled after a chat and after a call, `*.analyzed` events to the endpoints that subscribe to
 * them (and nothing else), the tool calls of a conversation, and the calls list's cursor and filters.
 */
let stack: VoiceStack
let receiver: HttpTarget
let team: Awaited<ReturnType<typeof createTeam>>
let key: string

beforeAll(async () => {
  receiver = await startHttpTarget((_request, response) => response.writeHead(200).end('ok'))
  stack = await startVoiceStack({
    env: { OUTBOUND_ALLOW_HOSTS: receiver.hostAndPort, WEBHOOK_RETRY_BASE_MS: '50' },
  })
  team = await createTeam(stack.server)
  key = await secretKeyFor(stack.server, team.owner)
})
afterAll(async () => {
  await stack?.close()
  await receiver?.close()
})

const api = (path: string, init: { method?: string; json?: unknown } = {}) =>
  stack.server.request(path, { ...init, headers: { 'x-api-key': key } })

const orderSchema = {
  type: 'object',
  properties: { orderNumber: { type: 'string' }, refundWanted: { type: 'boolean' } },
  required: ['orderNumber'],
}

/** The events the receiver got for one subject, by name, in order. */
const eventsAbout = (id: string) =>
  receiver.received
    .map((request) => JSON.parse(request.body) as { event: string; data: Record<string, unknown> })
    .filter((payload) => Object.values(payload.data).includes(id))

describe('agent settings', () => {
  it('take webhookEvents and an analysisSchema, and refuse ones that cannot work', async () => {
    const created = await api('/v1/agents', {
      method: 'POST',
      json: {
        name: 'Orders',
        agentArchitecture: 'text',
        systemPrompt: 'You help.',
        webhookEvents: ['chat.ended'],
        analysisSchema: orderSchema,
      },
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()).data
    const agent = (await (await api(`/v1/agents/${id}`)).json()).data
    expect(agent).toMatchObject({ webhookEvents: ['chat.ended'], analysisSchema: orderSchema })

    for (const [json, words] of [
      [{ webhookEvents: ['chat.started'] }, 'webhookEvents'],
      [{ webhookEvents: ['chat.ended', 'chat.ended'] }, 'repeat'],
      [{ analysisSchema: { type: 'array' } }, "analysisSchema.type must be 'object'"],
      [
        { analysisSchema: { type: 'object', properties: { when: { type: 'date' } } } },
        'analysisSchema.properties.when',
      ],
    ] as const) {
      const refused = await api(`/v1/agents/${id}`, { method: 'PATCH', json })
      expect(refused.status).toBe(400)
      expect(JSON.stringify(await refused.json())).toContain(words)
    }
    // A new agent receives every event unless it names fewer.
    const plain = await makeAgent(stack.server, team.owner)
    expect(plain.webhookEvents).toEqual([
      'chat.ended',
      'call.ended',
      'conversation.analyzed',
      'call.analyzed',
      'batch.completed',
      'batch.failed',
      'call.transferred',
      'contact.opted_out',
    ])
  })
})

describe('a chat conversation for its owner', () => {
  it('keeps its tool calls, fills the analysis schema, and sends only the subscribed event', async () => {
    const agent = await makeAgent(stack.server, team.owner, {
      postCallAnalysis: true,
      analysisSchema: orderSchema,
      webhookUrl: `${receiver.origin}/hooks`,
      webhookEvents: ['conversation.analyzed'],
      enabledFunctions: ['end_call'],
      functionCallingEnabled: true,
    })
    const session = await createChatSession(stack.server, { key, agentId: agent.id })
    stack.llm.queue({ toolCalls: [{ name: 'end_call' }] })
    stack.llm.queue({
      text: [
        '{"summary": "Asked about order A17.", "sentiment": "neutral", "outcome": "Status given", ',
        '"data": {"orderNumber": "A17", "refundWanted": false}}',
      ],
    })
    await sendChat(stack.server, session, 'Where is order A17? That is all, bye.')
    // end_call told the widget to end the session (stream_end end_session); the widget ends it.
    expect((await chatCall(stack.server, session, 'end')).status).toBe(200)

    const read = async () => (await (await api(`/v1/conversations/${session.conversation_id}`)).json()).data
    await expect.poll(async () => (await read()).analysis, { timeout: 15_000 }).not.toBeNull()
    const conversation = await read()
    expect(conversation).toMatchObject({
      status: 'ended',
      hasAnalysis: true,
      durationSeconds: expect.any(Number),
      toolCalls: [{ kind: 'end_call', name: 'end_call', status: 'completed', targetAgentId: null }],
      analysis: {
        summary: 'Asked about order A17.',
        sentiment: 'neutral',
        outcome: 'Status given',
        data: { orderNumber: 'A17', refundWanted: false },
      },
    })
    // The schema went to the model with the transcript.
    expect(JSON.stringify(stack.llm.requests.at(-1)?.messages)).toContain('orderNumber')

    await expect.poll(() => eventsAbout(session.conversation_id).length, { timeout: 15_000 }).toBe(1)
    expect(eventsAbout(session.conversation_id)[0]).toMatchObject({
      event: 'conversation.analyzed',
      data: { agent_id: agent.id, data: { orderNumber: 'A17', refundWanted: false } },
    })

    const analysed = await (await api(`/v1/conversations?hasAnalysis=true&agentId=${agent.id}`)).json()
    expect(analysed.data.map((row: { id: string }) => row.id)).toEqual([session.conversation_id])
    const notYet = await (await api(`/v1/conversations?hasAnalysis=false&agentId=${agent.id}`)).json()
    expect(notYet.data).toEqual([])
    expect((await api('/v1/conversations?hasAnalysis=yes')).status).toBe(400)
  })
})

describe('a call for its owner', () => {
  it('is analysed after it ends, its values checked against the schema, with call.ended then call.analyzed', async () => {
    const agent = await makeAgent(stack.server, team.owner, {
      agentArchitecture: 'pipeline',
      postCallAnalysis: true,
      analysisSchema: orderSchema,
      webhookUrl: `${receiver.origin}/hooks`,
    })
    const call = await startVoiceSession(stack.server, { key, agentId: agent.id })
    const said = await stack.server.request(`/v1/calls/${call.callId}/transcript`, {
      method: 'POST',
      token: stack.workerToken,
      json: {
        lines: [
          { role: 'assistant', content: 'Hello, Northwind Shop.' },
          { role: 'user', content: 'I want a refund for order B42, the mug broke.' },
        ],
      },
    })
    expect(said.status).toBe(200)
    // The model's values miss the schema (orderNumber must be a string): the analysis is kept, the values are not.
    stack.llm.queue({
      text: [
        '{"summary": "Refund asked for B42.", "sentiment": "negative", "outcome": "Refund started", "data": {"orderNumber": 42}}',
      ],
    })
    await postLiveKitWebhook(stack.server.url, stack.fake, {
      event: 'room_finished',
      room: { name: call.room_name },
    })

    const read = async () => (await (await api(`/v1/calls/${call.callId}`)).json()).data
    await expect.poll(async () => (await read()).analysis, { timeout: 15_000 }).not.toBeNull()
    expect((await read()).analysis).toMatchObject({
      summary: 'Refund asked for B42.',
      sentiment: 'negative',
      outcome: 'Refund started',
      data: null,
    })
    expect(JSON.stringify(stack.llm.requests.at(-1)?.messages)).toContain(
      'user: I want a refund for order B42',
    )
    await expect
      .poll(() => eventsAbout(call.callId).map((payload) => payload.event), { timeout: 15_000 })
      .toEqual(['call.ended', 'call.analyzed'])

    const analysed = await (await api(`/v1/calls?hasAnalysis=true&agentId=${agent.id}`)).json()
    expect(analysed.data.map((row: { id: string }) => row.id)).toEqual([call.callId])
  })
})

describe('GET /v1/calls', () => {
  it('pages by cursor without gaps, filters by direction, dates and words said, and refuses what it cannot read', async () => {
    const agent = await makeAgent(stack.server, team.owner, { agentArchitecture: 'pipeline' })
    const ids: string[] = []
    for (const words of ['my parcel never came', 'opening hours please', 'the parcel is late again']) {
      const call = await startVoiceSession(stack.server, { key, agentId: agent.id })
      await stack.server.request(`/v1/calls/${call.callId}/transcript`, {
        method: 'POST',
        token: stack.workerToken,
        json: { lines: [{ role: 'user', content: words }] },
      })
      ids.push(call.callId)
    }
    const newestFirst = [...ids].reverse()
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const query: string = `/v1/calls?agentId=${agent.id}&limit=2${cursor ? `&cursor=${cursor}` : ''}`
      const page = await (await api(query)).json()
      seen.push(...page.data.map((row: { id: string }) => row.id))
      cursor = page.nextCursor
    } while (cursor)
    expect(seen).toEqual(newestFirst)

    const parcel = await (await api(`/v1/calls?agentId=${agent.id}&q=parcel`)).json()
    expect(parcel.data.map((row: { id: string }) => row.id)).toEqual([ids[2], ids[0]])
    const web = await (await api(`/v1/calls?agentId=${agent.id}&direction=web&limit=100`)).json()
    expect(web.data).toHaveLength(3)
    expect((await (await api(`/v1/calls?agentId=${agent.id}&direction=outbound`)).json()).data).toEqual([])
    const future = await (await api(`/v1/calls?agentId=${agent.id}&createdFrom=2999-01-01T00:00:00Z`)).json()
    expect(future.data).toEqual([])

    for (const [query, field] of [
      ['cursor=not-a-cursor', 'cursor'],
      ['cursor=WyIyMDI2LTExLTI0VDA5OjMwOjAwLjAwMFoiLCJ4Il0&page=2', 'cursor'],
      ['createdFrom=2026-02-01T00:00:00Z&createdTo=2026-01-01T00:00:00Z', 'createdTo'],
      ['direction=sideways', 'direction'],
      ['colour=red', 'colour'],
    ]) {
      const refused = await api(`/v1/calls?${query}`)
      expect(refused.status).toBe(400)
      expect(JSON.stringify(await refused.json())).toContain(field)
    }
    const stranger = await secretKeyFor(stack.server, (await createTeam(stack.server)).owner)
    const theirs = await stack.server.request(`/v1/calls?q=parcel`, { headers: { 'x-api-key': stranger } })
    expect((await theirs.json()).data).toEqual([])
  })
})

describe('chat.end through the API', () => {
  it('sends chat.ended only to an agent that subscribes to it', async () => {
    const quiet = await makeAgent(stack.server, team.owner, {
      webhookUrl: `${receiver.origin}/hooks`,
      webhookEvents: ['call.ended'],
    })
    const loud = await makeAgent(stack.server, team.owner, { webhookUrl: `${receiver.origin}/hooks` })
    const sessions = []
    for (const agent of [quiet, loud]) {
      const session = await createChatSession(stack.server, { key, agentId: agent.id })
      expect((await chatCall(stack.server, session, 'end')).status).toBe(200)
      sessions.push(session)
    }
    const [silent, heard] = sessions.map((session) => session.conversation_id) as [string, string]
    await expect
      .poll(() => eventsAbout(heard).map((payload) => payload.event), { timeout: 15_000 })
      .toEqual(['chat.ended'])
    expect(eventsAbout(silent)).toEqual([])
  })
})
