import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { setBalanceMicros } from '../../test/helpers/billing.ts'
import { chatCall, createChatSession, readChatStream, sendChat } from '../../test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { placeHold } from '../billing/holds.ts'
import { getBalanceMicros } from '../billing/service.ts'
import { newUlid } from '../crypto/ids.ts'
import { priceReply } from './billing.ts'
import { settleCutOffReplies } from './recover.ts'
import { countOutputTokens } from './reply-cost.ts'

/**
 * Every token paid for: a reply holds its worst case before its model is asked (the prompt
 * counted, the completion at CHAT_MAX_REPLY_TOKENS, sent as the model's cap), so replies in
 * parallel cannot outrun the balance; each delivered reply is charged what the provider reported,
 * whole, even past the balance; tool rounds each count; a reply cut off by a dead instance is
 * charged from its checkpoint.
 */

// Prices that make the worst case easy to read: 1 USD per million prompt tokens, 100 per million
// completion tokens; a completion cap of 1,000 tokens is then 0.10 USD.
const PRICES = { 'gpt-4o-mini': { inputUsdPerMillion: 1, outputUsdPerMillion: 100 } }
const CAP = 1000

let server: TestServer
let llm: FakeLlm

beforeAll(async () => {
  llm = await startFakeLlm()
  server = await startTestServer({
    env: {
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: 'test-llm-key',
      LLM_PRICES: JSON.stringify(PRICES),
      CHAT_MAX_REPLY_TOKENS: String(CAP),
      CHAT_MIN_BALANCE_USD: '0.01',
      // The plan cache would start a session's second reply before its claim: off, so each
      // reply's requests are only those its hold paid for (the cache is covered in its own file).
      CHAT_PLAN_CACHE_ENTRIES: '0',
    },
  })
})
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
})
beforeEach(() => {
  llm.reset()
  llm.setFallback({ text: ['Hello', ' there', '!'], usage: { input: 10, output: 5 } })
})

const price = (input: number, output: number) =>
  priceReply(server.config, { model: 'gpt-4o-mini', usage: { inputTokens: input, outputTokens: output } })

const usageRows = (organizationId: string) =>
  server.ctx.db
    .selectFrom('credit_ledger')
    .select(['amount_micros', 'balance_after_micros', 'reason'])
    .where('organization_id', '=', organizationId)
    .where('kind', '=', 'usage')
    .orderBy('created_at')
    .orderBy('id')
    .execute()

const openHolds = (organizationId: string) =>
  server.ctx.db.selectFrom('credit_holds').selectAll().where('organization_id', '=', organizationId).execute()

/** A fresh organization with a live text agent, a secret key and `balance` micro-USD. */
const tenant = async (balance: number) => {
  const team = await createTeam(server)
  const key = await secretKeyFor(server, team.owner)
  const agent = await makeAgent(server, team.owner, { model: 'gpt-4o-mini' })
  await setBalanceMicros(server, { organizationId: team.organizationId, micros: balance })
  return { team, key, agent }
}

describe('every token paid for', () => {
  it('parallel replies on a small balance: those beyond it are refused before any model call, the rest charged their usage', async () => {
    // Each reply's worst case is 0.10 USD (the cap's 1,000 tokens) plus its prompt: 0.35 USD
    // covers three of five.
    const { team, key, agent } = await tenant(350_000)
    const sessions = await Promise.all(
      Array.from({ length: 5 }, () => createChatSession(server, { key, agentId: agent.id })),
    )
    let open = () => {}
    const gate = new Promise<void>((resolve) => {
      open = resolve
    })
    // Large usage (0.092 USD a reply), each reply held at its first chunk until all five are answered.
    llm.setFallback({
      text: ['Paid', ' for.'],
      usage: { input: 2000, output: 900 },
      hold: { atChunk: 0, until: gate },
    })
    const responses = await Promise.all(
      sessions.map((session) =>
        chatCall(server, session, 'messages', { json: { message: 'What does it cost?' } }),
      ),
    )
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(3)
    expect(statuses.filter((status) => status === 402)).toHaveLength(2)
    for (const refused of responses.filter((response) => response.status === 402))
      expect(await refused.json()).toMatchObject({ code: 'insufficient_credits' })
    // The refused replies never reached the model; each admitted one was sent with the cap.
    expect(llm.requests).toHaveLength(3)
    for (const request of llm.requests) expect(request.max_completion_tokens ?? request.max_tokens).toBe(CAP)
    open()
    const streams = await Promise.all(
      responses.filter((response) => response.status === 200).map((response) => readChatStream(response)),
    )
    for (const events of streams) expect(events.at(-1)?.event).toBe('stream_end')

    const rows = await usageRows(team.organizationId)
    expect(rows.map((row) => Number(row.amount_micros))).toEqual([-92_000, -92_000, -92_000])
    expect(price(2000, 900)).toBe(92_000)
    expect(await getBalanceMicros(server.ctx.db, team.organizationId)).toBe(350_000 - 3 * 92_000)
    expect(await openHolds(team.organizationId)).toEqual([])
    // A refused send left nothing behind: its message was not stored.
    const refusedSession = sessions[statuses.indexOf(402)]
    const history = await chatCall(server, refusedSession as (typeof sessions)[number], 'history')
    expect(((await history.json()) as { count: number }).count).toBe(0)
    // Its claim, made beside the refused hold, was undone whole: no reply slot, no first message.
    const refusedRow = await server.ctx.db
      .selectFrom('conversations')
      .select(['reply_started_at', 'first_user_at', 'message_count'])
      .where('id', '=', (refusedSession as (typeof sessions)[number]).conversation_id)
      .executeTakeFirstOrThrow()
    expect(refusedRow).toEqual({ reply_started_at: null, first_user_at: null, message_count: 0 })
  })

  it('charges the whole usage a provider reports past the hold: the balance goes below zero, new work is refused until topped up', async () => {
    const { team, key, agent } = await tenant(150_000)
    const session = await createChatSession(server, { key, agentId: agent.id })
    const warn = vi.spyOn(server.ctx.logger, 'warn')
    // A provider that ignores the cap and reports 3,000 completion tokens: 0.301 USD.
    llm.queue({ text: ['A long', ' answer.'], usage: { input: 1000, output: 3000 } })
    const { events } = await sendChat(server, session, 'Tell me everything')
    expect(events.at(-1)?.event).toBe('stream_end')
    const rows = await usageRows(team.organizationId)
    expect(rows.map((row) => [Number(row.amount_micros), Number(row.balance_after_micros)])).toEqual([
      [-301_000, -151_000],
    ])
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ organizationId: team.organizationId, balanceUsd: -0.151 }),
      expect.stringContaining('overdrawn'),
    )
    warn.mockRestore()

    // Refused new work with the contract's code, before any model call.
    const before = llm.requests.length
    const again = await chatCall(server, session, 'messages', { json: { message: 'More?' } })
    expect(again.status).toBe(402)
    expect(await again.json()).toMatchObject({ code: 'insufficient_credits' })
    const fresh = await server.request('/v1/chat/sessions', {
      method: 'POST',
      headers: { 'x-api-key': key },
      json: { agent_id: agent.id },
    })
    expect(fresh.status).toBe(402)
    expect(llm.requests.length).toBe(before)

    // The operator sees it.
    const listed = await server.request('/admin/organizations', { token: server.config.adminToken })
    const organizations = ((await listed.json()) as { data: Array<Record<string, unknown>> }).data
    expect(organizations.find((org) => org.id === team.organizationId)).toMatchObject({
      creditBalanceUsd: -0.151,
      overdrawn: true,
    })

    // A top-up counts from below zero; then the session answers again.
    const topUp = await server.request(`/admin/organizations/${team.organizationId}/credits`, {
      method: 'POST',
      token: server.config.adminToken,
      json: { amountUsd: 1, reason: 'Top-up' },
    })
    expect(topUp.status).toBe(201)
    expect(await topUp.json()).toMatchObject({
      data: { organization: { creditBalanceUsd: 0.849, overdrawn: false } },
    })
    const after = await sendChat(server, session, 'More?')
    expect(after.events.at(-1)?.event).toBe('stream_end')
  })

  it('charges each tool round, and stops a reply whose next round the credits no longer cover', async () => {
    const { team, key, agent } = await tenant(400_000)
    const session = await createChatSession(server, { key, agentId: agent.id })
    // Two rounds: a call of a tool the agent does not have (answered as an error), then text.
    llm.queue(
      { toolCalls: [{ name: 'lookup_weather', args: ['{}'] }], usage: { input: 300, output: 40 } },
      { text: ['Sunny.'], usage: { input: 500, output: 20 } },
    )
    const { events } = await sendChat(server, session, 'Weather?')
    expect(events.at(-1)?.event).toBe('stream_end')
    expect((await usageRows(team.organizationId)).map((row) => Number(row.amount_micros))).toEqual([
      -(price(300, 40) + price(500, 20)),
    ])

    // 0.15 USD: the first round fits; after it used 0.061 USD, the second's worst case does not.
    const poor = await tenant(150_000)
    const poorSession = await createChatSession(server, { key: poor.key, agentId: poor.agent.id })
    llm.reset()
    llm.queue({ toolCalls: [{ name: 'lookup_weather', args: ['{}'] }], usage: { input: 1000, output: 600 } })
    const cut = await sendChat(server, poorSession, 'Weather?')
    expect(cut.events.at(-1)).toMatchObject({
      event: 'error',
      data: { error: expect.stringContaining('credits') },
    })
    expect(llm.requests).toHaveLength(1)
    expect((await usageRows(poor.team.organizationId)).map((row) => Number(row.amount_micros))).toEqual([
      -price(1000, 600),
    ])
    expect(await openHolds(poor.team.organizationId)).toEqual([])
  })

  it("charges a dead instance's reply for what its checkpoint shows was streamed, once", async () => {
    const { team, key, agent } = await tenant(1_000_000)
    const session = await createChatSession(server, { key, agentId: agent.id })
    // What a killed instance leaves: a hold naming it (no heartbeat), a finished tool round, and
    // the round in progress's checkpointed text.
    const messageId = newUlid()
    const streamed = 'Your order shipped yesterday and should arrive'
    await server.ctx.db
      .insertInto('chat_messages')
      .values({
        id: messageId,
        conversation_id: session.conversation_id,
        role: 'assistant',
        content: `Let me look. ${streamed}`,
        status: 'partial',
        created_at: new Date(),
      })
      .execute()
    const holdId = await placeHold(server.ctx, {
      organizationId: team.organizationId,
      amountMicros: 200_000,
      kind: 'reply',
      reference: session.conversation_id,
      ttlMs: 600_000,
      round: {
        instanceId: 'an-instance-killed-mid-reply',
        messageId,
        model: 'gpt-4o-mini',
        promptTokens: 1200,
        usedMicros: 5000,
        textOffset: 'Let me look. '.length,
      },
    })
    expect(holdId).not.toBeNull()
    const outputTokens = countOutputTokens(server.ctx, { model: 'gpt-4o-mini', text: streamed })
    expect(outputTokens).toBeGreaterThan(5)
    // Two instances look at once: it is charged once.
    await Promise.all([settleCutOffReplies(server.ctx), settleCutOffReplies(server.ctx)])
    const expected = 5000 + price(1200, outputTokens)
    const rows = await usageRows(team.organizationId)
    expect(rows.map((row) => [Number(row.amount_micros), row.reason])).toEqual([
      [-expected, 'Chat reply (cut off)'],
    ])
    expect(await openHolds(team.organizationId)).toEqual([])
    const conversation = await server.ctx.db
      .selectFrom('conversations')
      .select(['cost_micros', 'output_tokens'])
      .where('id', '=', session.conversation_id)
      .executeTakeFirstOrThrow()
    expect(Number(conversation.cost_micros)).toBe(expected)
    expect(Number(conversation.output_tokens)).toBe(outputTokens)
  })

  it('many replies whose clients go away at once are each recorded and their holds settled once', async () => {
    // More replies than the pool has connections (1 embedded, 10 on PostgreSQL): they all end in
    // the same moment and queue to record rather than each waiting for a connection.
    const REPLIES = 24
    const { team, key, agent } = await tenant(10_000_000)
    const sessions = await Promise.all(
      Array.from({ length: REPLIES }, () => createChatSession(server, { key, agentId: agent.id })),
    )
    llm.setFallback({ text: ['Partial'], hang: true })
    const controllers = sessions.map(() => new AbortController())
    const firstChunks = sessions.map(async (session, index) => {
      const response = await chatCall(server, session, 'messages', {
        json: { message: 'Hold on' },
        signal: controllers[index]?.signal,
      })
      // Read until the first chunk; the abort below ends the rest of the stream.
      await new Promise<void>((resolve, reject) => {
        readChatStream(response, (event) => {
          if (event.event === 'chunk') resolve()
        }).then(() => reject(new Error('the stream ended before its first chunk')), reject)
      })
    })
    await Promise.all(firstChunks)
    for (const controller of controllers) controller.abort()

    const conversationIds = sessions.map((session) => session.conversation_id)
    // Not the poll's default second: 24 records queued behind one embedded connection take longer
    // on a loaded machine (seen twice at load 18–38).
    const recorded = { timeout: 20_000 }
    await expect
      .poll(
        () =>
          server.ctx.db
            .selectFrom('conversations')
            .select('id')
            .where('id', 'in', conversationIds)
            .where('reply_started_at', 'is not', null)
            .execute(),
        recorded,
      )
      .toEqual([])
    await expect.poll(() => openHolds(team.organizationId), recorded).toEqual([])
    const partials = await server.ctx.db
      .selectFrom('chat_messages')
      .select(['conversation_id', 'content'])
      .where('conversation_id', 'in', conversationIds)
      .where('role', '=', 'assistant')
      .execute()
    expect(partials).toHaveLength(REPLIES)
    expect(partials.every((row) => row.content === 'Partial')).toBe(true)
    const charges = await usageRows(team.organizationId)
    expect(charges).toHaveLength(REPLIES)
    const charged = charges.reduce((sum, row) => sum - Number(row.amount_micros), 0)
    expect(await getBalanceMicros(server.ctx.db, team.organizationId)).toBe(10_000_000 - charged)
  })
})

describe('prompt counting', () => {
  it("counts an OpenAI model's prompt with its tokenizer and another model's as its bytes", async () => {
    const { countPromptTokens } = await import('./reply-cost.ts')
    const messages = [
      { role: 'system' as const, content: 'You help customers of Northwind Shop with orders and returns.' },
      { role: 'user' as const, content: 'Where is my order A17? It was due yesterday.' },
    ]
    const bytes = messages.reduce((sum, message) => sum + Buffer.byteLength(message.content), 0)
    const openai = countPromptTokens(server.ctx, { model: 'gpt-4o-mini', messages, tools: [] })
    const other = countPromptTokens(server.ctx, { model: 'llama-3.3-70b-versatile', messages, tools: [] })
    // o200k_base: about a token per four characters of English, plus the framing.
    expect(openai).toBeGreaterThan(20)
    expect(openai).toBeLessThan(bytes / 2)
    expect(other).toBe(bytes + 3 + 2 * 4)
    expect(countOutputTokens(server.ctx, { model: 'gpt-4o-mini', text: 'Your order ships tomorrow.' })).toBe(
      5,
    )
  })
})
