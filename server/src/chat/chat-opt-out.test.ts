import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createChatSession, sendChat, textOf } from '../../test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

let llm: FakeLlm
let server: TestServer
let receiver: HttpTarget

beforeAll(async () => {
  llm = await startFakeLlm()
  receiver = await startHttpTarget((_request, response) => response.writeHead(200).end('ok'))
  server = await startTestServer({
    env: {
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: 'test-llm-key',
      OUTBOUND_ALLOW_HOSTS: receiver.hostAndPort,
    },
  })
})
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
  await receiver?.close()
})
beforeEach(() => llm.reset())

const offeredTools = (index: number) => (llm.requests[index]?.tools ?? []).map((tool) => tool.function.name)

describe('the opt_out built-in in a chat', () => {
  it('lists the number the visitor gives, confirms, ends the chat and sends contact.opted_out', async () => {
    const team = await createTeam(server)
    const key = await secretKeyFor(server, team.owner)
    const agent = await makeAgent(server, team.owner, { enabledFunctions: ['opt_out'] })
    await server.ctx.db
      .updateTable('agents')
      .set({ webhook_url: `${receiver.origin}/hooks/${agent.id}` })
      .where('id', '=', agent.id)
      .execute()
    const session = await createChatSession(server, { key, agentId: agent.id })

    // A number that is not E.164 is refused back to the model, which asks again; the chat goes on.
    llm.queue(
      {
        toolCalls: [{ name: 'opt_out', args: ['{"phoneNumber":"555 0199","confirmation":"Done."}'] }],
      },
      { text: ['Which number, with its country code?'] },
    )
    const first = await sendChat(server, session, 'Stop calling me')
    expect(textOf(first.events)).toBe('Which number, with its country code?')
    expect(offeredTools(0)).toContain('opt_out')
    const refused = llm.requests[1]?.messages.find((message) => message.role === 'tool')
    expect(JSON.parse(String(refused?.content)).error).toContain('not a valid phone number')

    llm.queue({
      toolCalls: [
        {
          name: 'opt_out',
          args: ['{"phoneNumber":"+1 (415) 555-0299","confirmation":"You will not be called again."}'],
        },
      ],
    })
    const second = await sendChat(server, session, 'It is +1 415 555 0299')
    expect(textOf(second.events)).toBe('You will not be called again.')
    expect(second.events.at(-1)).toMatchObject({ event: 'stream_end', data: { end_session: true } })

    const listed = await server.request('/v1/do-not-call?phoneNumber=%2B14155550299', { token: key })
    expect((await listed.json()).data).toEqual([
      {
        phoneNumber: '+14155550299',
        source: session.conversation_id,
        sourceKind: 'conversation',
        note: null,
        createdAt: expect.any(String),
      },
    ])
    await vi.waitFor(
      () => {
        const event = receiver.received
          .map((request) => JSON.parse(request.body) as { event: string; data: Record<string, unknown> })
          .find((payload) => payload.event === 'contact.opted_out')
        expect(event?.data).toMatchObject({
          phone_number: '+14155550299',
          agent_id: agent.id,
          channel: 'text',
          call_id: null,
          conversation_id: session.conversation_id,
          already_listed: false,
        })
      },
      { timeout: 15_000 },
    )
  })

  it('is not offered unless the agent enables it', async () => {
    const team = await createTeam(server)
    const key = await secretKeyFor(server, team.owner)
    const agent = await makeAgent(server, team.owner)
    const session = await createChatSession(server, { key, agentId: agent.id })
    llm.queue({ text: ['Hello.'] })
    await sendChat(server, session, 'Hi there, plain agent')
    const asked = llm.requests.find((request) =>
      request.messages.some((message) => message.content === 'Hi there, plain agent'),
    )
    expect(asked).toBeDefined()
    expect((asked?.tools ?? []).map((tool) => tool.function.name)).not.toContain('opt_out')
  })
})
