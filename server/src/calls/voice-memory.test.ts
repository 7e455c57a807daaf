import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatCall, createChatSession, sendChat } from '../../test/helpers/chat.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startVoiceSession, startVoiceStack, type VoiceStack } from '../../test/helpers/voice.ts'

/**
 * A call with a known person starts with their memory, as a chat does: the call setup the worker
 * reads carries what was remembered of the conversation's user_identifier; a stranger's has none.
 */
let stack: VoiceStack
let team: Awaited<ReturnType<typeof createTeam>>
let key: string

beforeAll(async () => {
  stack = await startVoiceStack()
  team = await createTeam(stack.server)
  key = await secretKeyFor(stack.server, team.owner)
}, 300_000)
afterAll(async () => {
  await stack?.close()
})

const setupOf = async (callId: string) => {
  const response = await stack.server.request(`/v1/calls/${callId}/setup`, { token: stack.workerToken })
  expect(response.status).toBe(200)
  return (await response.json()).data as { memory: string | null }
}

describe('caller memory on a call', () => {
  it('delivers the known person’s memory in the call setup, and none for a stranger', async () => {
    const textAgent = await makeAgent(stack.server, team.owner)
    const voiceAgent = await makeAgent(stack.server, team.owner, { agentArchitecture: 'pipeline' })

    // An earlier chat of customer-42, ended: its lines become their memory.
    const earlier = await createChatSession(stack.server, {
      key,
      agentId: textAgent.id,
      user_identifier: 'customer-42',
    })
    stack.llm.queue({ text: ['Noted, your order A17 ships Friday.'] })
    await sendChat(stack.server, earlier, 'My order is A17, and I am vegetarian.')
    expect((await chatCall(stack.server, earlier, 'end')).status).toBe(200)
    await expect
      .poll(
        async () =>
          (
            await stack.server.ctx.db
              .selectFrom('memory_summaries')
              .select('summary')
              .where('identity', '=', 'user:customer-42')
              .executeTakeFirst()
          )?.summary ?? '',
        { timeout: 20_000 },
      )
      .toContain('vegetarian')

    // Today customer-42 types, then switches to talking: the call knows them.
    const today = await createChatSession(stack.server, {
      key,
      agentId: textAgent.id,
      user_identifier: 'customer-42',
    })
    const call = await startVoiceSession(stack.server, { key, agentId: voiceAgent.id, continues: today })
    expect((await setupOf(call.callId)).memory).toContain('User: My order is A17, and I am vegetarian.')

    // A web call of its own has no known person.
    const stranger = await startVoiceSession(stack.server, { key, agentId: voiceAgent.id })
    expect((await setupOf(stranger.callId)).memory).toBeNull()
  })
})
