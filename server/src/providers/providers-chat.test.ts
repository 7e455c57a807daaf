import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createChatSession, sendChat, textOf } from '../../test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

// Three OpenAI-compatible fakes: OpenAI's and Groq's own endpoints, and the LLM_BASE_URL shortcut
// that stands in for providers the operator configured nothing for (here: Gemini).
const PLATFORM_OPENAI_KEY = 'sk-platform-openai-0001'
const SHORTCUT_KEY = 'llm-shortcut-key-0002'
const ORG_GROQ_KEY = 'gsk_org_groq_key_0003'

let server: TestServer
let openai: FakeLlm
let groq: FakeLlm
let shortcut: FakeLlm
/** A self-hosted OpenAI-compatible endpoint without a key, from PROVIDERS_FILE. */
let vllm: FakeLlm
let fakes: Array<[string, FakeLlm]>
let team: Awaited<ReturnType<typeof createTeam>>
let key: string

const authorizationsOf = (fake: FakeLlm) => fake.requestHeaders.map((headers) => headers.authorization)

const storeKeys = async (keys: Record<string, string | null>) => {
  const response = await server.request(`/api/organizations/${team.organizationId}/provider-keys`, {
    method: 'PUT',
    token: team.owner.session.token,
    json: { keys },
  })
  expect(response.status).toBe(200)
}

const chatWith = async (model: string, options: 'fallbackModel' | 'none' = 'none') => {
  const agent = await makeAgent(server, team.owner, {
    model,
    ...(options === 'fallbackModel' ? { fallbackModel: 'gpt-4o-mini' } : {}),
  })
  const session = await createChatSession(server, { key, agentId: agent.id })
  return sendChat(server, session, 'Hello?')
}

beforeAll(async () => {
  ;[openai, groq, shortcut, vllm] = await Promise.all([
    startFakeLlm(),
    startFakeLlm(),
    startFakeLlm(),
    startFakeLlm(),
  ])
  fakes = [
    ['openai', openai],
    ['groq', groq],
    ['shortcut', shortcut],
    ['vllm', vllm],
  ]
  const providersFile = join(tmpdir(), `parley-providers-${process.pid}-${Date.now()}.json`)
  writeFileSync(
    providersFile,
    JSON.stringify({
      providers: [
        {
          id: 'gpu-box',
          name: 'vLLM on the GPU box',
          baseUrl: vllm.baseUrl,
          models: [
            {
              id: 'qwen-local',
              name: 'Qwen 2.5 7B (local)',
              providerModel: 'Qwen/Qwen2.5-7B-Instruct',
              inputUsdPerMillion: 0.05,
              outputUsdPerMillion: 0.1,
            },
          ],
        },
      ],
    }),
  )
  server = await startTestServer({
    env: {
      OPENAI_BASE_URL: openai.baseUrl,
      OPENAI_API_KEY: PLATFORM_OPENAI_KEY,
      GROQ_BASE_URL: groq.baseUrl,
      LLM_BASE_URL: shortcut.baseUrl,
      LLM_API_KEY: SHORTCUT_KEY,
      PROVIDERS_FILE: providersFile,
    },
  })
  team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
  await storeKeys({ groq: ORG_GROQ_KEY })
})
afterAll(async () => {
  await server?.destroy()
  await Promise.all(fakes.map(([, fake]) => fake.close()))
})
beforeEach(() => {
  for (const [, fake] of fakes) fake.reset()
  vi.restoreAllMocks()
})

describe('each model reaches its own provider, with the right key', () => {
  it("sends a Groq agent's replies only to Groq, with the organization's Groq key", async () => {
    const { events } = await chatWith('llama-3.3-70b-versatile')
    expect(textOf(events)).toBe('Hello there!')
    expect(authorizationsOf(groq)).toEqual([`Bearer ${ORG_GROQ_KEY}`])
    expect(groq.requests[0]?.model).toBe('llama-3.3-70b-versatile')
    expect(openai.requests).toHaveLength(0)
    expect(shortcut.requests).toHaveLength(0)
  })

  it('sends an OpenAI agent without an organization key to OpenAI with the platform key', async () => {
    const { events } = await chatWith('gpt-4o-mini')
    expect(events.at(-1)?.event).toBe('stream_end')
    expect(authorizationsOf(openai)).toEqual([`Bearer ${PLATFORM_OPENAI_KEY}`])
    expect(groq.requests).toHaveLength(0)
    expect(shortcut.requests).toHaveLength(0)
  })

  it('serves a provider with nothing configured through LLM_BASE_URL, with LLM_API_KEY', async () => {
    const { events } = await chatWith('gemini-2.0-flash')
    expect(events.at(-1)?.event).toBe('stream_end')
    expect(authorizationsOf(shortcut)).toEqual([`Bearer ${SHORTCUT_KEY}`])
    expect(shortcut.requests[0]?.model).toBe('gemini-2.0-flash')
  })

  it("never carries one provider's key to another host", async () => {
    for (const model of ['llama-3.3-70b-versatile', 'gpt-4o-mini', 'gemini-2.0-flash', 'qwen-local'])
      await chatWith(model)
    const keys = [PLATFORM_OPENAI_KEY, ORG_GROQ_KEY, SHORTCUT_KEY]
    const allowed: Record<string, string | null> = {
      openai: PLATFORM_OPENAI_KEY,
      groq: ORG_GROQ_KEY,
      shortcut: SHORTCUT_KEY,
      vllm: null,
    }
    for (const [name, fake] of fakes) {
      expect(fake.requests.length).toBeGreaterThan(0)
      for (const authorization of authorizationsOf(fake))
        for (const key of keys) if (key !== allowed[name]) expect(authorization ?? '').not.toContain(key)
    }
  })

  it("sends a PROVIDERS_FILE model to its own endpoint under the provider's model id", async () => {
    const { events } = await chatWith('qwen-local')
    expect(events.at(-1)?.event).toBe('stream_end')
    expect(vllm.requests.map((request) => request.model)).toEqual(['Qwen/Qwen2.5-7B-Instruct'])
    expect(shortcut.requests).toHaveLength(0)
  })
})

describe('provider failures', () => {
  it.each([
    [401, 'refused its credentials'],
    [429, 'busy right now'],
    [500, 'unavailable right now'],
  ])(
    'HTTP %i ends the reply with a readable error event and a log line naming provider, status and request id',
    async (status, words) => {
      const warn = vi.spyOn(server.ctx.logger, 'warn')
      groq.queue({ status })
      const { events } = await chatWith('llama-3.3-70b-versatile')
      const last = events.at(-1)
      expect(last?.event).toBe('error')
      expect(String(last?.data.error)).toContain(words)
      const line = warn.mock.calls.find(([, message]) => String(message).includes('model provider'))
      expect(line?.[0]).toMatchObject({ provider: 'groq', status, requestId: expect.stringMatching(/^req_/) })
      // Neither the visitor nor the operator ever sees the key.
      expect(JSON.stringify(events)).not.toContain(ORG_GROQ_KEY)
      expect(JSON.stringify(warn.mock.calls)).not.toContain(ORG_GROQ_KEY)
    },
  )

  it('an outage (the connection drops) is an error event and a log line without status', async () => {
    const warn = vi.spyOn(server.ctx.logger, 'warn')
    openai.queue({ text: [], breakAfterText: true })
    const { events } = await chatWith('gpt-4o-mini')
    expect(events.at(-1)?.event).toBe('error')
    const line = warn.mock.calls.find(([, message]) => String(message).includes('model provider'))
    expect(line?.[0]).toMatchObject({ provider: 'openai', status: null })
    expect(JSON.stringify(warn.mock.calls)).not.toContain(PLATFORM_OPENAI_KEY)
  })
})

describe('fallback model', () => {
  it('retries once on the fallback when the provider fails before the first chunk, and records the switch', async () => {
    const warn = vi.spyOn(server.ctx.logger, 'warn')
    groq.queue({ status: 503 })
    const { events } = await chatWith('llama-3.3-70b-versatile', 'fallbackModel')
    expect(events.at(-1)?.event).toBe('stream_end')
    expect(textOf(events)).toBe('Hello there!')
    expect(authorizationsOf(groq)).toEqual([`Bearer ${ORG_GROQ_KEY}`])
    expect(authorizationsOf(openai)).toEqual([`Bearer ${PLATFORM_OPENAI_KEY}`])
    const switched = warn.mock.calls.find(([, message]) => String(message).includes('falls back'))
    expect(switched?.[0]).toMatchObject({ provider: 'groq', status: 503, fallbackModel: 'gpt-4o-mini' })
    const row = await server.ctx.db
      .selectFrom('chat_messages')
      .select(['model', 'fallback_from', 'content'])
      .where('role', '=', 'assistant')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(row).toEqual({
      model: 'gpt-4o-mini',
      fallback_from: 'llama-3.3-70b-versatile',
      content: 'Hello there!',
    })
  })

  it('does not switch once the reply has begun', async () => {
    groq.queue({ text: ['Half'], breakAfterText: true })
    const { events } = await chatWith('llama-3.3-70b-versatile', 'fallbackModel')
    expect(events.at(-1)?.event).toBe('error')
    expect(openai.requests).toHaveLength(0)
  })

  it('is shown on the agent and checked against the catalogue at save', async () => {
    const apiKey = await secretKeyFor(server, team.owner)
    const create = (json: Record<string, unknown>) =>
      server.request('/v1/agents', {
        method: 'POST',
        token: apiKey,
        json: { name: 'Fallback', agentArchitecture: 'text', systemPrompt: 'Hi.', ...json },
      })
    const made = await create({ model: 'llama-3.3-70b-versatile', fallbackModel: 'gpt-4o-mini' })
    expect(made.status).toBe(201)
    const agentOf = async (response: Response) => {
      const { data } = await response.json()
      return data.agent ?? data
    }
    const { id } = await agentOf(made)
    const read = await server.request(`/v1/agents/${id}`, { token: apiKey })
    expect(await agentOf(read)).toMatchObject({ fallbackModel: 'gpt-4o-mini' })
    const same = await create({ model: 'gpt-4o-mini', fallbackModel: 'gpt-4o-mini' })
    expect(same.status).toBe(400)
    const unknown = await create({ model: 'gpt-4o-mini', fallbackModel: 'gpt-99' })
    expect(unknown.status).toBe(400)
    const cleared = await server.request(`/v1/agents/${id}`, {
      method: 'PATCH',
      token: apiKey,
      json: { fallbackModel: null },
    })
    expect(cleared.status).toBe(200)
    expect(await agentOf(cleared)).toMatchObject({ fallbackModel: null })
  })
})

describe('GET /v1/catalogue', () => {
  it("says which entries this deployment can serve and why not, with each model's price", async () => {
    const response = await server.request('/v1/catalogue', { token: key })
    expect(response.status).toBe(200)
    const { data } = await response.json()
    const model = (id: string) => data.models.find((entry: { id: string }) => entry.id === id)
    expect(model('gpt-4o-mini')).toMatchObject({
      available: true,
      price: { inputUsdPerMillion: 0.15, outputUsdPerMillion: 0.6 },
    })
    expect(model('qwen-local')).toMatchObject({
      provider: 'gpu-box',
      available: true,
      price: { inputUsdPerMillion: 0.05, outputUsdPerMillion: 0.1 },
    })
    const deepgram = data.stt.find((entry: { id: string }) => entry.id === 'deepgram-nova-3')
    expect(deepgram).toMatchObject({
      available: false,
      unavailableReason: expect.stringContaining('DEEPGRAM_API_KEY'),
    })
    const whisper = data.stt.find((entry: { id: string }) => entry.id === 'whisper-1')
    expect(whisper).toMatchObject({ available: true })
    expect(JSON.stringify(data)).not.toContain(ORG_GROQ_KEY)
  })
})
