import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postLiveKitWebhook } from '../../test/helpers/fake-livekit.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import {
  backdateCall,
  findCallOfRoom,
  startVoiceSession,
  startVoiceStack,
  type VoiceStack,
} from '../../test/helpers/voice.ts'
import { PLATFORM_FEE_MICROS_PER_MINUTE, priceCall, VOICE_MICROS_PER_MINUTE } from './pricing.ts'

/**
 * Voice minutes are priced from the agent's own models (the catalogue's STT, LLM and TTS or
 * realtime prices), and a part the organization's own key serves costs only the platform fee.
 */
let stack: VoiceStack

beforeAll(async () => {
  stack = await startVoiceStack()
})
afterAll(async () => {
  await stack?.close()
})

/** A call of the agent billed for a minute and closed: its price a minute, hold and cost. */
const billedCall = async (key: string, agentId: string) => {
  const session = await startVoiceSession(stack.server, { key, agentId })
  const hold = await stack.server.ctx.db
    .selectFrom('credit_holds')
    .select('amount_micros')
    .where('reference', '=', session.callId)
    .executeTakeFirstOrThrow()
  await backdateCall(stack.server, session.room_name, 60)
  await postLiveKitWebhook(stack.server.url, stack.fake, {
    event: 'room_finished',
    room: { name: session.room_name },
  })
  const call = await findCallOfRoom(stack.server, session.room_name)
  expect(call.status).toBe('ended')
  return {
    rate: Number(call.micros_per_minute),
    hold: Number(hold.amount_micros),
    cost: Number(call.cost_micros),
    seconds: call.duration_seconds ?? 0,
  }
}

describe('voice pricing', () => {
  it('prices each agent from its models: two models, two prices, holds at the same price', async () => {
    const team = await createTeam(stack.server)
    const key = await secretKeyFor(stack.server, team.owner)
    const mini = await makeAgent(stack.server, team.owner, { agentArchitecture: 'pipeline' })
    const large = await makeAgent(stack.server, team.owner, {
      agentArchitecture: 'pipeline',
      model: 'gpt-4o',
    })
    const live = await makeAgent(stack.server, team.owner, { agentArchitecture: 'realtime' })

    const cheap = await billedCall(key, mini.id)
    const dear = await billedCall(key, large.id)
    const realtime = await billedCall(key, live.id)
    // Deepgram Nova 3 0.0077 + GPT-4o mini (3,000 tokens in at 0.15, 250 out at 0.6 per million)
    // 0.0006 + Cartesia Sonic 2 0.0092 USD a minute; GPT-4o's share is 0.0075 + 0.0025.
    expect(cheap.rate).toBe(7_700 + 600 + 9_200)
    expect(cheap.rate).toBe(VOICE_MICROS_PER_MINUTE.pipeline)
    expect(dear.rate).toBe(7_700 + 10_000 + 9_200)
    expect(realtime.rate).toBe(35_000)
    for (const call of [cheap, dear, realtime]) {
      expect(call.hold).toBe(call.rate * 2)
      expect(call.cost).toBe(priceCall(call.rate, call.seconds))
      expect(call.seconds).toBeGreaterThanOrEqual(60)
    }
    expect(dear.cost).toBeGreaterThan(cheap.cost)
  })

  it("charges only the platform fee for the parts the organization's own keys serve", async () => {
    const team = await createTeam(stack.server)
    const key = await secretKeyFor(stack.server, team.owner)
    const stored = await stack.server.request(`/api/organizations/${team.organizationId}/provider-keys`, {
      method: 'PUT',
      token: team.owner.session.token,
      json: { keys: { deepgram: 'dg-own-key-1234', cartesia: 'cartesia-own-key-1234' } },
    })
    expect(stored.status).toBe(200)
    const agent = await makeAgent(stack.server, team.owner, { agentArchitecture: 'pipeline' })
    const call = await billedCall(key, agent.id)
    // STT and TTS on the organization's keys: the platform fee each; the LLM on the platform's.
    expect(call.rate).toBe(PLATFORM_FEE_MICROS_PER_MINUTE + 600 + PLATFORM_FEE_MICROS_PER_MINUTE)
    expect(call.cost).toBe(priceCall(call.rate, call.seconds))

    // The catalogue shows both prices of each part.
    const catalogue = await (
      await stack.server.request('/v1/catalogue', { headers: { 'x-api-key': key } })
    ).json()
    const nova = catalogue.data.stt.find((entry: { id: string }) => entry.id === 'deepgram-nova-3')
    expect(nova.price).toEqual({ usdPerMinute: 0.0077, ownKeyUsdPerMinute: 0.001 })
    const model = catalogue.data.models.find((entry: { id: string }) => entry.id === 'gpt-4o')
    expect(model.voicePrice).toEqual({ usdPerMinute: 0.01, ownKeyUsdPerMinute: 0.001 })
    const openai = catalogue.data.realtimeProviders.find((entry: { id: string }) => entry.id === 'openai')
    expect(openai.price).toEqual({ usdPerMinute: 0.035, ownKeyUsdPerMinute: 0.001 })
  })
})
