import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { chatCall, createChatSession, sendChat } from '../../test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

let server: TestServer
let llm: FakeLlm
let team: Awaited<ReturnType<typeof createTeam>>
let key: string

beforeAll(async () => {
  llm = await startFakeLlm()
  server = await startTestServer({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test-llm-key' } })
  team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
})
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
})
beforeEach(() => llm.reset())

const analysisOf = (conversationId: string) =>
  server.ctx.db
    .selectFrom('conversations')
    .select(['analysis_summary', 'analysis_sentiment', 'analysis_outcome'])
    .where('id', '=', conversationId)
    .executeTakeFirstOrThrow()

describe('post-call analysis', () => {
  it('asks the agent’s model after the end and stores summary, sentiment and outcome', async () => {
    const agent = await makeAgent(server, team.owner, { postCallAnalysis: true })
    const session = await createChatSession(server, { key, agentId: agent.id })
    llm.queue({ text: ['Your order ships ', 'tomorrow.'], usage: { input: 20, output: 6 } })
    await sendChat(server, session, 'Where is my order 42?')
    // The analysis streams like any completion; its JSON may arrive in pieces and wrapped in prose.
    llm.queue({
      text: [
        'Here it is: {"summary": "The user asked about order 42; ',
        'it ships tomorrow.", ',
        '"sentiment": "positive", "outcome": "Order status given"}',
      ],
      usage: { input: 80, output: 30 },
    })
    expect((await chatCall(server, session, 'end')).status).toBe(200)

    await expect
      .poll(() => analysisOf(session.conversation_id), { timeout: 15_000 })
      .toEqual({
        analysis_summary: 'The user asked about order 42; it ships tomorrow.',
        analysis_sentiment: 'positive',
        analysis_outcome: 'Order status given',
      })
    const request = llm.requests.at(-1)
    expect(request?.model).toBe(agent.model)
    expect(JSON.stringify(request?.messages)).toContain('user: Where is my order 42?')
    expect(JSON.stringify(request?.messages)).toContain('assistant: Your order ships tomorrow.')
    // Its tokens are debited like a reply's, as their own ledger row.
    const debits = await server.ctx.db
      .selectFrom('credit_ledger')
      .select('reason')
      .where('reference', '=', session.conversation_id)
      .orderBy('created_at')
      .execute()
    expect(debits.map((row) => row.reason)).toEqual(['Chat reply', 'Chat post-call analysis'])
  })

  it('does nothing for an agent that has not asked for it', async () => {
    const agent = await makeAgent(server, team.owner)
    expect(agent.postCallAnalysis).toBe(false)
    const session = await createChatSession(server, { key, agentId: agent.id })
    await sendChat(server, session, 'Hi')
    const requestsBefore = llm.requests.length
    expect((await chatCall(server, session, 'end')).status).toBe(200)
    // The end effects ran (the session is gone); no analysis request reached the model.
    expect((await chatCall(server, session, 'history')).status).toBe(404)
    expect(llm.requests).toHaveLength(requestsBefore)
    expect(await analysisOf(session.conversation_id)).toEqual({
      analysis_summary: null,
      analysis_sentiment: null,
      analysis_outcome: null,
    })
  })

  it('is one setting in both vocabularies: v1 create, PATCH and GET, studio PUT', async () => {
    const v1 = (path: string, method: string, json?: unknown) =>
      server.request(path, { method, headers: { 'x-api-key': key }, ...(json ? { json } : {}) })
    const created = await v1('/v1/agents', 'POST', {
      name: 'Analysed',
      agentArchitecture: 'text',
      model: 'gpt-4o-mini',
      systemPrompt: 'Hi',
      postCallAnalysis: true,
    })
    expect(created.status).toBe(201)
    const { data } = (await created.json()) as { data: { id: string } }
    const readV1 = async () =>
      ((await (await v1(`/v1/agents/${data.id}`, 'GET')).json()) as { data: { postCallAnalysis: boolean } })
        .data.postCallAnalysis
    expect(await readV1()).toBe(true)
    expect((await v1(`/v1/agents/${data.id}`, 'PATCH', { postCallAnalysis: false })).status).toBe(200)
    expect(await readV1()).toBe(false)
    const studio = await server.request(`/api/agents/${data.id}`, {
      method: 'PUT',
      token: team.owner.session.token,
      json: { postCallAnalysis: true },
    })
    expect(studio.status).toBe(200)
    expect(((await studio.json()) as { agent: { postCallAnalysis: boolean } }).agent.postCallAnalysis).toBe(
      true,
    )
    // The studio edits the draft: it is the agent's setting once published.
    expect(await readV1()).toBe(false)
    expect((await v1(`/v1/agents/${data.id}/publish`, 'POST', {})).status).toBe(201)
    expect(await readV1()).toBe(true)
  })
})
