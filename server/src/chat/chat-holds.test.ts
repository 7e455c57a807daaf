import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { placeHold } from '../../src/billing/hold-store.ts'
import { recoverDeadInstances } from '../../src/instances/liveness.ts'
import { setBalanceMicros } from '../../test/helpers/billing.ts'
import { chatCall, createChatSession, readChatStream, sendChat } from '../../test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { replyHolds } from './billing.ts'

let server: TestServer
let llm: FakeLlm

beforeAll(async () => {
  llm = await startFakeLlm()
  // Heartbeats far apart: the test runs the dead-instance sweep itself, when it means to.
  server = await startTestServer({
    env: { LLM_BASE_URL: llm.baseUrl, CHAT_MIN_BALANCE_USD: '0', INSTANCE_HEARTBEAT_MS: '600000' },
  })
})
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
})

const tenant = async () => {
  const team = await createTeam(server)
  const key = await secretKeyFor(server, team.owner)
  const agent = await makeAgent(server, team.owner)
  const hold = replyHolds(server.config).byModel[agent.model ?? 'offline'] ?? 0
  return { organizationId: team.organizationId, key, agentId: agent.id, hold }
}

const holdsOf = async (organizationId: string) => {
  const { rows } = await sql<{ held: number; count: number }>`
    select o.held_micros as held, (select count(*) from credit_holds h where h.organization_id = o.id)::int as count
    from organizations o where o.id = ${organizationId}`.execute(server.ctx.db)
  return rows[0]
}

describe('credit holds on chat replies', () => {
  it('50 concurrent replies at a balance that covers 5 deliver exactly 5; the rest answer 402', async () => {
    const { organizationId, key, agentId, hold } = await tenant()
    expect(hold).toBeGreaterThan(0)
    const sessions = await Promise.all(
      Array.from({ length: 50 }, () => createChatSession(server, { key, agentId })),
    )
    await setBalanceMicros(server, { organizationId, micros: 5 * hold + Math.floor(hold / 2) })
    let open: () => void = () => undefined
    const gate = new Promise<void>((resolve) => {
      open = resolve
    })
    // Every admitted reply waits at its first chunk until all 50 sends have been answered.
    llm.setFallback({
      text: ['Paid', ' for'],
      usage: { input: 100, output: 20 },
      hold: { atChunk: 0, until: gate },
    })
    const responses = await Promise.all(
      sessions.map((session) => chatCall(server, session, 'messages', { json: { message: 'Hello?' } })),
    )
    const admitted = responses.filter((response) => response.status === 200)
    const refused = responses.filter((response) => response.status !== 200)
    expect(admitted).toHaveLength(5)
    for (const response of refused) {
      expect(response.status).toBe(402)
      expect(((await response.json()) as { code: string }).code).toBe('insufficient_credits')
    }
    expect(await holdsOf(organizationId)).toEqual({ held: 5 * hold, count: 5 })
    open()
    const streams = await Promise.all(admitted.map((response) => readChatStream(response)))
    for (const events of streams) expect(events.at(-1)?.event).toBe('stream_end')

    // Settled by the real cost: the holds are gone and the ledger has the five debits.
    expect(await holdsOf(organizationId)).toEqual({ held: 0, count: 0 })
    const ledger = await server.ctx.db
      .selectFrom('credit_ledger')
      .select('amount_micros')
      .where('organization_id', '=', organizationId)
      .where('kind', '=', 'usage')
      .execute()
    expect(ledger).toHaveLength(5)
    for (const row of ledger) expect(-row.amount_micros).toBeLessThanOrEqual(hold)
  })

  it('the holds and reply slot of a dead instance are released, its partial text kept', async () => {
    llm.setFallback({ text: ['Again'], usage: { input: 10, output: 5 } })
    const { organizationId, key, agentId, hold } = await tenant()
    await setBalanceMicros(server, { organizationId, micros: hold })
    const session = await createChatSession(server, { key, agentId })
    // What an instance that died mid-reply leaves: its hold, the slot and the text it had saved.
    const now = new Date()
    await placeHold(server.ctx.db, {
      id: 'hold_dead',
      organizationId,
      kind: 'chat_reply',
      reference: session.conversation_id,
      amountMicros: hold,
      atLeastMicros: 0,
      instanceId: 'inst_dead',
      now,
      expiresAt: new Date(now.getTime() + 60_000),
    })
    await server.ctx.db
      .updateTable('conversations')
      .set({ reply_started_at: now, reply_instance_id: 'inst_dead', reply_partial_text: 'Half a sen' })
      .where('id', '=', session.conversation_id)
      .execute()
    const blocked = await chatCall(server, session, 'messages', { json: { message: 'Still there?' } })
    expect(blocked.status).toBe(409)

    await recoverDeadInstances(server.ctx, [])
    expect(await holdsOf(organizationId)).toEqual({ held: 0, count: 0 })
    const { events } = await sendChat(server, session, 'Still there?')
    expect(events.at(-1)?.event).toBe('stream_end')
    const messages = await server.ctx.db
      .selectFrom('chat_messages')
      .select(['role', 'content', 'status'])
      .where('conversation_id', '=', session.conversation_id)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
    expect(messages.map((m) => [m.role, m.content, m.status])).toEqual([
      ['assistant', 'Half a sen', 'partial'],
      ['user', 'Still there?', 'complete'],
      ['assistant', 'Again', 'complete'],
    ])
  })
})
