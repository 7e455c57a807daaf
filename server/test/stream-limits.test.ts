import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createChatSession } from './helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from './helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from './helpers/organization.ts'
import { canRunTwoInstances, startTestServer, type TestServer } from './helpers/test-server.ts'

/**
 * Open event streams are capped per API key and per organization (STREAMS_PER_KEY,
 * STREAMS_PER_ORGANIZATION; counted in Redis across instances when it is configured): one more is
 * 429 `too_many_streams` in the area's {detail, code} body with Retry-After, and a closed stream
 * gives its place back.
 */

let server: TestServer
let llm: FakeLlm

beforeAll(async () => {
  llm = await startFakeLlm()
  // Every reply streams a word, then stays open until its client leaves.
  llm.setFallback({ text: ['Thinking'], hang: true })
  server = await startTestServer({
    env: {
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: 'test-llm-key',
      STREAMS_PER_KEY: '2',
      STREAMS_PER_ORGANIZATION: '3',
    },
  })
})
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
})

/** A reply stream left open until `close`; its status says whether it was admitted. */
const openStream = async (session: { conversation_id: string; session_token: string }, on = server) => {
  const controller = new AbortController()
  const response = await fetch(`${on.url}/v1/chat/sessions/${session.conversation_id}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.session_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'Tell me a long story' }),
    signal: controller.signal,
  })
  return {
    response,
    close: () => {
      controller.abort()
      response.body?.cancel().catch(() => undefined)
    },
  }
}

describe('open-stream limits', () => {
  it('refuses a key its third open stream and an organization its fourth, then admits once one closes', async () => {
    const team = await createTeam(server)
    const keyA = await secretKeyFor(server, team.owner)
    const keyB = await secretKeyFor(server, team.admin)
    const agent = await makeAgent(server, team.owner)
    const session = (key: string) => createChatSession(server, { key, agentId: agent.id })

    const a1 = await openStream(await session(keyA))
    const a2 = await openStream(await session(keyA))
    expect([a1.response.status, a2.response.status]).toEqual([200, 200])
    const requestsBefore = llm.requests.length
    const a3 = await openStream(await session(keyA))
    expect(a3.response.status).toBe(429)
    expect(a3.response.headers.get('retry-after')).toBe('5')
    expect(await a3.response.json()).toMatchObject({
      code: 'too_many_streams',
      detail: expect.stringContaining('API key'),
    })
    // Refused before the model was asked.
    expect(llm.requests.length).toBe(requestsBefore)

    // Another key of the organization: one more fits the organization's three, not two.
    const b1 = await openStream(await session(keyB))
    expect(b1.response.status).toBe(200)
    const b2 = await openStream(await session(keyB))
    expect(b2.response.status).toBe(429)
    expect(await b2.response.json()).toMatchObject({
      code: 'too_many_streams',
      detail: expect.stringContaining('organization'),
    })

    // Another organization is not held back by this one.
    const other = await createTeam(server)
    const otherKey = await secretKeyFor(server, other.owner)
    const otherAgent = await makeAgent(server, other.owner)
    const elsewhere = await openStream(
      await createChatSession(server, { key: otherKey, agentId: otherAgent.id }),
    )
    expect(elsewhere.response.status).toBe(200)

    // A closed stream gives its place back.
    a1.close()
    const retried = await session(keyA)
    await vi.waitFor(
      async () => {
        const again = await openStream(retried)
        if (again.response.status === 200) {
          again.close()
          return
        }
        await again.response.text()
        throw new Error(`still ${again.response.status}`)
      },
      { timeout: 10_000, interval: 100 },
    )
    for (const open of [a2, b1, elsewhere]) open.close()
  })

  it.skipIf(!canRunTwoInstances)('counts a key’s streams across instances (Redis)', async () => {
    const second = await startTestServer({ shareDatabaseWith: server, env: server.env })
    try {
      const team = await createTeam(server)
      const key = await secretKeyFor(server, team.owner)
      const agent = await makeAgent(server, team.owner)
      const session = () => createChatSession(server, { key, agentId: agent.id })
      const first = await openStream(await session())
      const onSecond = await openStream(await session(), second)
      expect([first.response.status, onSecond.response.status]).toEqual([200, 200])
      const third = await openStream(await session(), second)
      expect(third.response.status).toBe(429)
      expect(await third.response.json()).toMatchObject({ code: 'too_many_streams' })
      first.close()
      onSecond.close()
    } finally {
      await second.stop()
    }
  })
})
