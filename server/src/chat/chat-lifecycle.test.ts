import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { chatCall, createChatSession, readChatStream, sendChat, textOf } from '../../test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { type HttpTarget, respondJson, startHttpTarget } from '../../test/helpers/http-target.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { updateAgent } from '../agents/service.ts'
import { auditBySystem } from '../audit/index.ts'
import { createFunction } from '../functions/service.ts'

let server: TestServer
let llm: FakeLlm
let customer: HttpTarget
let team: Awaited<ReturnType<typeof createTeam>>
let key: string

beforeAll(async () => {
  llm = await startFakeLlm()
  customer = await startHttpTarget((_request, response) => respondJson(response, 200, { status: 'shipped' }))
  server = await startTestServer({
    env: {
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: 'test-llm-key',
      OUTBOUND_ALLOW_HOSTS: customer.hostAndPort,
    },
  })
  team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
})
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
  await customer?.close()
})
beforeEach(() => llm.reset())

const actor = () => ({
  organizationId: team.organizationId,
  userId: team.owner.userId,
  role: 'owner' as const,
})

/** A support agent with a custom function, end_call and a handoff to a billing agent. */
const makeSupportDesk = async () => {
  const billing = await makeAgent(server, team.owner, {
    name: 'Billing Bot',
    systemPrompt: 'You handle billing.',
    model: 'gpt-4o',
  })
  const support = await makeAgent(server, team.owner, {
    name: 'Support Bot',
    systemPrompt: 'You answer support questions.',
    greetingType: 'agentFirst',
    greetingMessage: 'Hi! How can I help?',
    enabledFunctions: ['end_call'],
    handoffAgentIds: [billing.id],
  })
  const fn = await createFunction(server.ctx, actor(), {
    agentId: support.id,
    input: {
      name: 'lookup_order',
      label: 'Look up an order',
      description: 'Finds an order by id',
      endpoint: `${customer.origin}/orders`,
      method: 'POST',
      headers: { 'x-shop-token': 'secret-shop-token' },
      parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    },
  })
  await updateAgent(server.ctx, actor(), {
    agentId: support.id,
    changes: { enabledCustomFunctions: [fn.id] },
    surface: 'v1',
    by: auditBySystem,
  })
  return { support, billing }
}

describe('a chat session from start to end', () => {
  it('creates a session with the greeting, model and a session token', async () => {
    const { support } = await makeSupportDesk()
    const session = await createChatSession(server, {
      key,
      agentId: support.id,
      user_identifier: 'ada@example.com',
    })
    expect(session).toMatchObject({
      agent_name: 'Support Bot',
      greeting: 'Hi! How can I help?',
      agent_model: 'gpt-4o-mini',
    })
    expect(session.session_token.split('.')).toHaveLength(3)
  })

  it('streams every event type in order: a tool round trip, a handoff, then the new agent answers', async () => {
    const { support } = await makeSupportDesk()
    const session = await createChatSession(server, { key, agentId: support.id })
    llm.queue(
      {
        text: ['Let me ', 'check.'],
        toolCalls: [{ name: 'lookup_order', args: ['{"order', '_id": "A', '1"}'] }],
        usage: { input: 100, output: 10 },
      },
      { toolCalls: [{ name: 'transfer_to_billing_bot', args: ['{}'] }], usage: { input: 120, output: 5 } },
      { text: [' Billing ', 'here.'], usage: { input: 50, output: 4 } },
    )
    const { response, events } = await sendChat(server, session, 'Where is my order A1? And a refund please')
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(response.headers.get('x-accel-buffering')).toBe('no')

    expect(events.map((event) => event.event)).toEqual([
      'stream_start',
      'chunk',
      'chunk',
      'tool_call',
      'tool_result',
      'handoff',
      'chunk',
      'chunk',
      'stream_end',
    ])
    expect(events.map((event) => Number(event.id))).toEqual(events.map((_, index) => index + 1))
    expect(events[0]?.data).toEqual({ agent_name: 'Support Bot' })
    expect(events[3]?.data).toEqual({ name: 'lookup_order', status: 'executing' })
    expect(events[4]?.data).toEqual({ name: 'lookup_order', status: 'completed' })
    expect(events[5]?.data).toEqual({ from_agent: 'Support Bot', to_agent: 'Billing Bot' })
    expect(events.at(-1)?.data).toEqual({
      usage: { input_tokens: 270, output_tokens: 19 },
      end_session: false,
    })
    expect(textOf(events)).toBe('Let me check. Billing here.')

    // The split argument fragments arrived joined at the customer's endpoint, with its header.
    const call = customer.received.at(-1)
    expect(JSON.parse(call?.body ?? '')).toEqual({ order_id: 'A1' })
    expect(call?.headers['x-shop-token']).toBe('secret-shop-token')

    // Round 1 offered the tools and asked for usage; round 2 had the tool result; round 3 was Billing Bot.
    const [first, second, third] = llm.requests
    expect(first?.stream_options).toEqual({ include_usage: true })
    expect(first?.tools?.map((tool) => tool.function.name)).toEqual([
      'lookup_order',
      'end_call',
      'transfer_to_billing_bot',
    ])
    expect(first?.messages[0]).toEqual({ role: 'system', content: 'You answer support questions.' })
    expect(first?.messages.slice(1).map((m) => m.role)).toEqual(['assistant', 'user'])
    expect(second?.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: JSON.stringify({ status: 'shipped' }),
    })
    expect(third?.model).toBe('gpt-4o')
    expect(third?.messages[0]).toEqual({ role: 'system', content: 'You handle billing.' })

    // The handoff holds for the rest of the session.
    llm.queue({ text: ['Refund done.'], usage: { input: 10, output: 3 } })
    const next = await sendChat(server, session, 'Thanks')
    expect(next.events[0]?.data).toEqual({ agent_name: 'Billing Bot' })
    expect(llm.requests.at(-1)?.model).toBe('gpt-4o')
  })

  it('offers no functions when functionCallingEnabled is false, only the handoff transfers', async () => {
    const { support } = await makeSupportDesk()
    await updateAgent(server.ctx, actor(), {
      agentId: support.id,
      changes: { functionCallingEnabled: false },
      surface: 'v1',
      by: auditBySystem,
    })
    const session = await createChatSession(server, { key, agentId: support.id })
    llm.queue({ text: ['Hello.'], usage: { input: 10, output: 2 } })
    await sendChat(server, session, 'Hi')
    expect(llm.requests.at(-1)?.tools?.map((tool) => tool.function.name)).toEqual(['transfer_to_billing_bot'])
  })

  it('ends the session when the agent calls end_call: stream_end says end_session, the closing line is said', async () => {
    const { support } = await makeSupportDesk()
    await updateAgent(server.ctx, actor(), {
      agentId: support.id,
      changes: { lastMessage: 'Goodbye!' },
      surface: 'v1',
      by: auditBySystem,
    })
    const session = await createChatSession(server, { key, agentId: support.id })
    llm.queue({ toolCalls: [{ name: 'end_call', args: ['{}'] }], usage: { input: 20, output: 2 } })
    const { events } = await sendChat(server, session, 'That is all, bye')
    expect(events.map((event) => event.event)).toEqual([
      'stream_start',
      'tool_call',
      'tool_result',
      'chunk',
      'stream_end',
    ])
    expect(textOf(events)).toBe('Goodbye!')
    expect(events.at(-1)?.data).toEqual({ usage: { input_tokens: 20, output_tokens: 2 }, end_session: true })

    const ended = await chatCall(server, session, 'end')
    expect(ended.status).toBe(200)
    expect(await ended.json()).toEqual({ success: true, message: 'Session ended' })
  })

  it('keeps the history with timestamps and token counts, oldest first, paginated', async () => {
    const { support } = await makeSupportDesk()
    const session = await createChatSession(server, { key, agentId: support.id })
    for (const n of [1, 2]) {
      llm.queue({ text: [`Answer ${n}`], usage: { input: 10 * n, output: n } })
      await sendChat(server, session, `Question ${n}`)
    }
    const all = await chatCall(server, session, 'history')
    const body = (await all.json()) as {
      messages: { role: string; content: string; timestamp: string; token_count: number | null }[]
      count: number
    }
    expect(body.count).toBe(5)
    expect(body.messages.map((m) => [m.role, m.content])).toEqual([
      ['assistant', 'Hi! How can I help?'],
      ['user', 'Question 1'],
      ['assistant', 'Answer 1'],
      ['user', 'Question 2'],
      ['assistant', 'Answer 2'],
    ])
    expect(body.messages[2]?.token_count).toBe(1)
    expect(body.messages[4]?.token_count).toBe(2)
    expect(Number.isNaN(Date.parse(body.messages[0]?.timestamp ?? ''))).toBe(false)

    const page = async (query: string) =>
      (await (await chatCall(server, session, 'history', { query })).json()) as typeof body
    expect((await page('?limit=2&offset=1')).messages.map((m) => m.content)).toEqual([
      'Question 1',
      'Answer 1',
    ])
    expect(await page('?limit=2&offset=5')).toEqual({ messages: [], count: 5 })
    expect((await page('?offset=4')).messages.map((m) => m.content)).toEqual(['Answer 2'])
    expect((await chatCall(server, session, 'history', { query: '?limit=0' })).status).toBe(400)
  })

  it('sends the conversation so far to the model, and recalls memory in the next session', async () => {
    const { support } = await makeSupportDesk()
    const first = await createChatSession(server, {
      key,
      agentId: support.id,
      user_identifier: 'grace@example.com',
    })
    await sendChat(server, first, 'My name is Grace')
    expect((await chatCall(server, first, 'end')).status).toBe(200)
    const second = await createChatSession(server, {
      key,
      agentId: support.id,
      user_identifier: 'grace@example.com',
    })
    // Ingestion is fire-and-forget: wait until the summary is there.
    await expect
      .poll(async () => {
        llm.reset()
        await sendChat(server, second, 'Do you remember me?')
        return String(llm.requests[0]?.messages[0]?.content)
      })
      .toContain('My name is Grace')
  })

  it('stores a partial reply and sends an error event when the model fails mid-stream', async () => {
    const { support } = await makeSupportDesk()
    const session = await createChatSession(server, { key, agentId: support.id })
    llm.queue({ text: ['Half an ', 'answer'], breakAfterText: true })
    const { events } = await sendChat(server, session, 'Tell me everything')
    expect(events.map((event) => event.event)).toEqual(['stream_start', 'chunk', 'chunk', 'error'])
    expect(events.at(-1)?.data).toEqual({
      error: 'The assistant could not finish this reply; please try again',
    })
    const history = (await (await chatCall(server, session, 'history')).json()) as {
      messages: { content: string }[]
    }
    expect(history.messages.at(-1)?.content).toBe('Half an answer')
    const [row] = await server.ctx.db
      .selectFrom('chat_messages')
      .select('status')
      .where('conversation_id', '=', session.conversation_id)
      .where('role', '=', 'assistant')
      .orderBy('created_at', 'desc')
      .limit(1)
      .execute()
    expect(row?.status).toBe('partial')

    // The session is free for the next message.
    const again = await sendChat(server, session, 'Try again')
    expect(again.events.at(-1)?.event).toBe('stream_end')
  })

  it('stop aborts the upstream request at once and marks the stored reply stopped', async () => {
    const { support } = await makeSupportDesk()
    const session = await createChatSession(server, { key, agentId: support.id })
    llm.queue({ text: ['Thinking'], hang: true })
    const response = await chatCall(server, session, 'messages', { json: { message: 'Long question' } })
    const gone = llm.clientsGone()
    const events = readChatStream(response, (event) => {
      if (event.event === 'chunk') void chatCall(server, session, 'messages/stop')
    })
    const received = await events
    expect(received.map((event) => event.event)).toEqual(['stream_start', 'chunk', 'stream_end'])
    await expect.poll(() => llm.clientsGone()).toBe(gone + 1)
    const rows = await server.ctx.db
      .selectFrom('chat_messages')
      .select(['status', 'content'])
      .where('conversation_id', '=', session.conversation_id)
      .where('role', '=', 'assistant')
      .orderBy('created_at')
      .orderBy('id')
      .execute()
    expect(rows.at(-1)).toEqual({ status: 'stopped', content: 'Thinking' })
  })

  it('a client that goes away aborts the upstream request; the partial reply is stored as partial', async () => {
    const { support } = await makeSupportDesk()
    const session = await createChatSession(server, { key, agentId: support.id })
    llm.queue({ text: ['Partial ', 'words'], hang: true })
    const gone = llm.clientsGone()
    const controller = new AbortController()
    const response = await server.request(`/v1/chat/sessions/${session.conversation_id}/messages`, {
      method: 'POST',
      token: session.session_token,
      json: { message: 'Go' },
      signal: controller.signal,
    })
    await readChatStream(response, (event) => {
      if (event.event === 'chunk' && event.data.delta === 'words') controller.abort()
    }).catch(() => undefined)
    await expect.poll(() => llm.clientsGone()).toBe(gone + 1)
    await expect
      .poll(async () =>
        (
          await server.ctx.db
            .selectFrom('chat_messages')
            .select(['status', 'content'])
            .where('conversation_id', '=', session.conversation_id)
            .where('status', '=', 'partial')
            .execute()
        ).at(0),
      )
      .toEqual({ status: 'partial', content: 'Partial words' })
  })
})
