import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { chatCall, createChatSession, sendChat } from '../../test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { isSignedForAgent } from '../../test/helpers/webhooks.ts'
import { getBalanceMicros } from '../billing/service.ts'

let llm: FakeLlm
let receiver: HttpTarget

beforeAll(async () => {
  llm = await startFakeLlm()
  receiver = await startHttpTarget((_request, response) => {
    response.writeHead(200)
    response.end('ok')
  })
})
afterAll(async () => {
  await llm?.close()
  await receiver?.close()
})

const bootWith = async (env: Record<string, string> = {}) => {
  const server = await startTestServer({
    env: { LLM_BASE_URL: llm.baseUrl, OUTBOUND_ALLOW_HOSTS: receiver.hostAndPort, ...env },
  })
  const team = await createTeam(server)
  const key = await secretKeyFor(server, team.owner)
  const agent = await makeAgent(server, team.owner, {
    name: 'Webhook Agent',
    // A plain-HTTP local receiver is accepted because it is on the outbound allow-list.
    webhookUrl: `${receiver.origin}/hooks/${team.organizationId}`,
  })
  return { server, team, key, agent }
}

const ledgerOf = (server: TestServer, conversationId: string) =>
  server.ctx.db
    .selectFrom('credit_ledger')
    .select(['amount_micros as amount', 'kind'])
    .where('reference', '=', conversationId)
    .execute()

const deliveriesOf = (conversationId: string) =>
  receiver.received.filter((request) => request.body.includes(conversationId))

describe('ending a session', () => {
  let setup: Awaited<ReturnType<typeof bootWith>>
  beforeAll(async () => {
    setup = await bootWith()
  })
  afterAll(async () => setup?.server.destroy())

  it('debits exactly the price-table sum of its replies, one ledger row per reply', async () => {
    const { server, team, key, agent } = setup
    const session = await createChatSession(server, { key, agentId: agent.id })
    const before = await getBalanceMicros(server.ctx.db, team.organizationId)
    // gpt-4o-mini: 0.15 USD per million input tokens, 0.60 per million output tokens.
    const usages = [
      { input: 1000, output: 500 }, // 150 + 300 = 450 micro-USD
      { input: 2000, output: 100 }, // 300 + 60 = 360
      { input: 333, output: 77 }, // 49.95 + 46.2 = 96.15 → 97 (rounded up)
    ]
    for (const usage of usages) {
      llm.queue({ text: ['ok'], usage })
      await sendChat(server, session, 'Go on')
    }
    expect((await ledgerOf(server, session.conversation_id)).map((row) => Number(row.amount))).toEqual([
      -450, -360, -97,
    ])
    expect(before - (await getBalanceMicros(server.ctx.db, team.organizationId))).toBe(907)
    expect((await chatCall(server, session, 'end')).status).toBe(200)
    const row = await server.ctx.db
      .selectFrom('conversations')
      .select(['status', 'input_tokens', 'output_tokens', 'cost_micros'])
      .where('id', '=', session.conversation_id)
      .executeTakeFirstOrThrow()
    expect(row).toEqual({ status: 'ended', input_tokens: 3333, output_tokens: 677, cost_micros: 907 })
  })

  it('fires one signed chat.ended webhook with the spec payload, even when ends race', async () => {
    const { server, team, key, agent } = setup
    const session = await createChatSession(server, { key, agentId: agent.id })
    llm.queue({ text: ['Hello'], usage: { input: 1000, output: 1000 } })
    await sendChat(server, session, 'Hi')
    const ledgerBefore = await ledgerOf(server, session.conversation_id)

    const statuses = await Promise.all(
      Array.from({ length: 5 }, async () => (await chatCall(server, session, 'end')).status),
    )
    expect(statuses.sort()).toEqual([200, 404, 404, 404, 404])
    expect(await ledgerOf(server, session.conversation_id)).toEqual(ledgerBefore)

    await vi.waitFor(() => expect(deliveriesOf(session.conversation_id)).toHaveLength(1), { timeout: 15_000 })
    const delivery = deliveriesOf(session.conversation_id)[0]
    expect(
      await isSignedForAgent(server, { organizationId: team.organizationId, agentId: agent.id }, delivery),
    ).toBe(true)
    const payload = JSON.parse(delivery?.body ?? '{}')
    expect(payload.event).toBe('chat.ended')
    expect(payload.data).toEqual({
      conversation_id: session.conversation_id,
      agent_id: agent.id,
      agent_name: 'Webhook Agent',
      duration: expect.any(Number),
      message_count: 2,
      input_tokens: 1000,
      output_tokens: 1000,
      total_cost: 0.00075,
    })
    // Listed with the agent's deliveries.
    const listed = await server.request(`/v1/agents/${agent.id}/webhook-deliveries`, {
      headers: { 'x-api-key': key },
    })
    expect(listed.status).toBe(200)
    expect(JSON.stringify(await listed.json())).toContain(session.conversation_id)
  })
})

describe('idle expiry (CHAT_IDLE_TIMEOUT_SECONDS=1)', () => {
  it('expires an idle session from the job, runs the end effects once, then answers 404', async () => {
    const { server, key, agent } = await bootWith({ CHAT_IDLE_TIMEOUT_SECONDS: '1' })
    try {
      const session = await createChatSession(server, { key, agentId: agent.id })
      await vi.waitFor(
        async () => {
          const row = await server.ctx.db
            .selectFrom('conversations')
            .select('status')
            .where('id', '=', session.conversation_id)
            .executeTakeFirstOrThrow()
          expect(row.status).toBe('expired')
        },
        { timeout: 20_000, interval: 200 },
      )
      await vi.waitFor(() => expect(deliveriesOf(session.conversation_id)).toHaveLength(1), {
        timeout: 15_000,
      })
      const response = await chatCall(server, session, 'history')
      expect(response.status).toBe(404)
      expect(((await response.json()) as { code: string }).code).toBe('session_not_found')
      expect(deliveriesOf(session.conversation_id)).toHaveLength(1)
    } finally {
      await server.destroy()
    }
  })

  it('expires a session whose server restarted in between (the job is in PostgreSQL)', async () => {
    const first = await bootWith({ CHAT_IDLE_TIMEOUT_SECONDS: '1' })
    const session = await createChatSession(first.server, { key: first.key, agentId: first.agent.id })
    await first.server.stop()
    const second = await first.server.restart()
    try {
      await vi.waitFor(() => expect(deliveriesOf(session.conversation_id)).toHaveLength(1), {
        timeout: 20_000,
      })
      const row = await second.ctx.db
        .selectFrom('conversations')
        .select('status')
        .where('id', '=', session.conversation_id)
        .executeTakeFirstOrThrow()
      expect(row.status).toBe('expired')
    } finally {
      await second.destroy()
    }
  })
})
