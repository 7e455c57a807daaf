import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createChatSession, sendChat, textOf } from '../../test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { type HttpTarget, respondJson, startHttpTarget } from '../../test/helpers/http-target.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { loadCatalogue } from '../agents/catalogue.ts'
import type { Config } from '../config.ts'
import type { AppContext } from '../context.ts'
import { buildToolset } from './tools.ts'

let llm: FakeLlm
/** A Tavily-compatible search endpoint. */
let provider: HttpTarget
/** SEARCH_URL set. */
let withSearch: TestServer

beforeAll(async () => {
  llm = await startFakeLlm()
  provider = await startHttpTarget((_request, response) =>
    respondJson(response, 200, {
      results: [
        { title: 'Parley pricing', url: 'https://parley.example/pricing', content: 'Pro costs 49 USD.' },
        { title: 'Other', url: 'https://other.example', content: 'Unrelated.' },
      ],
    }),
  )
  const env = { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test-llm-key' }
  withSearch = await startTestServer({
    env: {
      ...env,
      SEARCH_URL: `${provider.origin}/search`,
      SEARCH_API_KEY: 'search-key',
      OUTBOUND_ALLOW_HOSTS: provider.hostAndPort,
    },
  })
})
afterAll(async () => {
  await withSearch?.destroy()
  await llm?.close()
  await provider?.close()
})
beforeEach(() => llm.reset())

const sessionOn = async (server: TestServer) => {
  const team = await createTeam(server)
  const key = await secretKeyFor(server, team.owner)
  const agent = await makeAgent(server, team.owner, { enabledFunctions: ['web_search'] })
  return createChatSession(server, { key, agentId: agent.id })
}

const offeredTools = (index: number) => (llm.requests[index]?.tools ?? []).map((tool) => tool.function.name)

describe('the web_search built-in', () => {
  it('is offered when a search provider is configured; its results go back to the model', async () => {
    const session = await sessionOn(withSearch)
    llm.queue(
      { toolCalls: [{ name: 'web_search', args: ['{"query":', ' "parley pricing"}'] }] },
      { text: ['Pro costs ', '49 USD.'] },
    )
    const { events } = await sendChat(withSearch, session, 'How much is Parley Pro?')
    expect(events.map((event) => event.event)).toEqual([
      'stream_start',
      'tool_call',
      'tool_result',
      'chunk',
      'chunk',
      'stream_end',
    ])
    expect(events[1]?.data).toEqual({ name: 'web_search', status: 'executing' })
    expect(textOf(events)).toBe('Pro costs 49 USD.')
    expect(offeredTools(0)).toContain('web_search')

    const asked = provider.received.at(-1)
    expect(asked?.headers.authorization).toBe('Bearer search-key')
    expect(JSON.parse(asked?.body ?? '{}')).toEqual({ query: 'parley pricing', max_results: 5 })
    const toolTurn = llm.requests[1]?.messages.find((message) => message.role === 'tool')
    expect(JSON.parse(String(toolTurn?.content))).toEqual({
      results: [
        { title: 'Parley pricing', url: 'https://parley.example/pricing', snippet: 'Pro costs 49 USD.' },
        { title: 'Other', url: 'https://other.example', snippet: 'Unrelated.' },
      ],
    })
  })

  it('is not offered without a search provider, and the catalogue says it is unavailable', async () => {
    const team = await createTeam(withSearch)
    const agent = await makeAgent(withSearch, team.owner, { enabledFunctions: ['web_search', 'end_call'] })
    // The same deployment without SEARCH_URL: one server is enough, the setting is read per call.
    const unconfigured: AppContext = { ...withSearch.ctx, config: { ...withSearch.ctx.config, search: null } }
    const names = async (ctx: AppContext) =>
      (await buildToolset(ctx, agent, agent.organizationId)).tools.map((tool) => tool.function.name)
    expect(await names(unconfigured)).toEqual(['end_call'])
    expect(await names(withSearch.ctx)).toEqual(['end_call', 'web_search'])
    const available = (config: Config) =>
      loadCatalogue(config).functions.find((fn) => fn.id === 'web_search')?.available
    expect(available(unconfigured.config)).toBe(false)
    expect(available(withSearch.ctx.config)).toBe(true)
  })
})
