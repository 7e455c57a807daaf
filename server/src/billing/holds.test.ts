import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setBalanceMicros } from '../../test/helpers/billing.ts'
import { chatCall, createChatSession, readChatStream } from '../../test/helpers/chat.ts'
import type { FakeLlm } from '../../test/helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import type { TestServer } from '../../test/helpers/test-server.ts'
import { startVoiceStack, type VoiceStack } from '../../test/helpers/voice.ts'
import { estimateCallMicros, voiceRateFor } from '../calls/pricing.ts'
import { getBalanceMicros } from './service.ts'

/**
 * No usage without a paid-for hold: concurrent replies and calls are admitted only while the
 * balance minus what is already held covers them, and the real cost settles each hold.
 */

// A reply's hold is its worst case: with no price on the prompt and 10 USD per million completion
// tokens, a 1,000-token cap makes it 0.01 USD whatever the prompt.
const REPLY_HOLD = 10_000
let stack: VoiceStack
let WORKER_TOKEN: string
let llm: FakeLlm
let server: TestServer

beforeAll(async () => {
  stack = await startVoiceStack({
    env: {
      LLM_PRICES: JSON.stringify({ 'gpt-4o-mini': { inputUsdPerMillion: 0, outputUsdPerMillion: 10 } }),
      CHAT_MAX_REPLY_TOKENS: '1000',
      CHAT_MIN_BALANCE_USD: '0.01',
    },
  })
  ;({ server, llm, workerToken: WORKER_TOKEN } = stack)
})
afterAll(() => stack?.close())

const openHolds = (organizationId: string) =>
  server.ctx.db.selectFrom('credit_holds').selectAll().where('organization_id', '=', organizationId).execute()

const ledgerSum = async (organizationId: string) => {
  const row = await server.ctx.db
    .selectFrom('credit_ledger')
    .select((eb) => eb.fn.sum<string>('amount_micros').as('sum'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow()
  return Number(row.sum)
}

describe('credit holds', () => {
  it('50 replies at once on a balance that covers 5: 5 stream, 45 are refused with 402, nothing overdraws', async () => {
    const team = await createTeam(server)
    const key = await secretKeyFor(server, team.owner)
    const agent = await makeAgent(server, team.owner, { model: 'gpt-4o-mini' })
    const sessions = await Promise.all(
      Array.from({ length: 50 }, () => createChatSession(server, { key, agentId: agent.id })),
    )
    await setBalanceMicros(server, { organizationId: team.organizationId, micros: 5 * REPLY_HOLD })
    // Every reply waits at its first chunk until all 50 answers are in: they are truly concurrent.
    let open = () => {}
    const gate = new Promise<void>((resolve) => {
      open = resolve
    })
    llm.setFallback({
      text: ['Paid', ' for.'],
      usage: { input: 100, output: 20 },
      hold: { atChunk: 0, until: gate },
    })
    try {
      const responses = await Promise.all(
        sessions.map((session) => chatCall(server, session, 'messages', { json: { message: 'hi' } })),
      )
      const statuses = responses.map((response) => response.status)
      expect(statuses.filter((status) => status === 200)).toHaveLength(5)
      expect(statuses.filter((status) => status === 402)).toHaveLength(45)
      const refused = responses.find((response) => response.status === 402)
      expect(await refused?.json()).toMatchObject({ code: 'insufficient_credits' })
      expect(await openHolds(team.organizationId)).toHaveLength(5)
      open()
      const streams = await Promise.all(
        responses.filter((response) => response.status === 200).map((response) => readChatStream(response)),
      )
      for (const events of streams) expect(events.at(-1)?.event).toBe('stream_end')
    } finally {
      open()
      llm.setFallback({ text: ['Hello', ' there', '!'], usage: { input: 10, output: 5 } })
    }
    // Settled: no hold left, the balance is what the ledger says, and never below zero.
    expect(await openHolds(team.organizationId)).toEqual([])
    const balance = await getBalanceMicros(server.ctx.db, team.organizationId)
    expect(balance).toBeGreaterThanOrEqual(0)
    expect(balance).toBe(await ledgerSum(team.organizationId))
    expect(balance).toBeLessThan(5 * REPLY_HOLD)
  })

  it('admits voice sessions while their holds fit, and a closed call frees its hold at once', async () => {
    const team = await createTeam(server)
    const key = await secretKeyFor(server, team.owner)
    const agent = await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })
    // Held at the agent's own price per minute (its models; README "Voice pricing").
    const callHold = estimateCallMicros(
      await voiceRateFor(server.ctx, { agent, organizationId: team.organizationId }),
    )
    await setBalanceMicros(server, { organizationId: team.organizationId, micros: 2 * callHold })
    const start = () =>
      server.request('/v1/chat/voice-sessions', {
        method: 'POST',
        headers: { 'x-api-key': key },
        json: { agent_id: agent.id },
      })
    const [first, second, third] = await Promise.all([start(), start(), start()])
    expect([first, second, third].map((response) => response.status).sort()).toEqual([200, 200, 402])
    const holds = await openHolds(team.organizationId)
    expect(holds.map((hold) => Number(hold.amount_micros))).toEqual([callHold, callHold])
    expect(holds.every((hold) => hold.reference !== null)).toBe(true)

    // The agent ends one call (never joined: failed, unbilled): its hold goes with it.
    const ended = await server.request(`/v1/calls/${holds[0]?.reference}/end`, {
      method: 'POST',
      token: WORKER_TOKEN,
      json: { reason: 'agent_ended' },
    })
    expect(ended.status).toBe(200)
    expect(await openHolds(team.organizationId)).toHaveLength(1)
    expect((await start()).status).toBe(200)
    expect((await start()).status).toBe(402)
  })
})
