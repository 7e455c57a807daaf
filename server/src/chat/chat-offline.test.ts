import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatCall, createChatSession, sendChat, textOf } from '../../test/helpers/chat.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

let server: TestServer
let key: string
let team: Awaited<ReturnType<typeof createTeam>>
beforeAll(async () => {
  // No LLM_BASE_URL: the embedded default's `offline` stand-in answers.
  server = await startTestServer()
  team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
})
afterAll(async () => server?.destroy())

describe('the offline model', () => {
  it('streams a clearly labelled reply word by word', async () => {
    const agent = await makeAgent(server, team.owner)
    const session = await createChatSession(server, { key, agentId: agent.id })
    const { events } = await sendChat(server, session, 'What can you do?')
    const chunks = events.filter((event) => event.event === 'chunk')
    expect(chunks.length).toBeGreaterThan(5)
    expect(textOf(events)).toMatch(/^\[Offline model\] .*You said: "What can you do\?"/)
    expect(events.at(-1)).toMatchObject({ event: 'stream_end', data: { end_session: false } })
  })

  it('calls end_call when the user says goodbye and the agent has it', async () => {
    const agent = await makeAgent(server, team.owner, {
      enabledFunctions: ['end_call'],
      lastMessage: 'Bye for now!',
    })
    const session = await createChatSession(server, { key, agentId: agent.id })
    const { events } = await sendChat(server, session, 'Thanks, goodbye')
    expect(events.map((event) => event.event)).toEqual([
      'stream_start',
      'tool_call',
      'tool_result',
      'chunk',
      'stream_end',
    ])
    expect(events.at(-1)?.data).toMatchObject({ end_session: true })
  })

  it('writes a clearly labelled offline post-call analysis when the agent asks for one', async () => {
    const agent = await makeAgent(server, team.owner, { postCallAnalysis: true })
    const session = await createChatSession(server, { key, agentId: agent.id })
    await sendChat(server, session, 'Hello there')
    expect((await chatCall(server, session, 'end')).status).toBe(200)
    await expect
      .poll(
        () =>
          server.ctx.db
            .selectFrom('conversations')
            .select(['analysis_summary', 'analysis_sentiment', 'analysis_outcome'])
            .where('id', '=', session.conversation_id)
            .executeTakeFirstOrThrow(),
        { timeout: 15_000 },
      )
      .toEqual({
        analysis_summary: expect.stringMatching(/^\[Offline analysis\] 2 messages \(1 from the user\)/),
        analysis_sentiment: 'neutral',
        analysis_outcome: 'unknown (offline model)',
      })
  })
})
