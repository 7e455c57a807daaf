import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTeamWithKeys, type TeamKeys } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

/**
 * A voice agent's settings that the worker must honour: a realtime temperature only where the
 * model takes one, and fallback STT and TTS from the catalogue.
 */
let server: TestServer
let keys: TeamKeys
beforeAll(async () => {
  server = await startTestServer()
  ;({ keys } = await createTeamWithKeys(server))
})
afterAll(async () => {
  await server.destroy()
})

const v1 = (path: string, init: { method?: string; json?: unknown } = {}) =>
  server.request(path, { method: init.method ?? 'GET', json: init.json, token: keys.owner })

const create = async (json: Record<string, unknown>) => v1('/v1/agents', { method: 'POST', json })

const realtime = (provider: 'openai' | 'gemini') => ({
  name: 'Live',
  agentArchitecture: 'realtime',
  realtimeProvider: provider,
  systemPrompt: 'Talk.',
})

const pipeline = {
  name: 'Phone',
  agentArchitecture: 'pipeline',
  model: 'gpt-4o-mini',
  stt: 'deepgram-nova-3',
  tts: 'cartesia-sonic-2',
  systemPrompt: 'Answer calls.',
}

describe('temperature of a realtime agent', () => {
  it('is refused for OpenAI Realtime, whose API takes none, with a clear 400 that changes nothing', async () => {
    const refused = await create({ ...realtime('openai'), temperature: 0.2 })
    expect(refused.status).toBe(400)
    expect((await refused.json()).error).toMatch(/OpenAI Realtime takes no temperature/)

    const created = await create(realtime('openai'))
    expect(created.status).toBe(201)
    const { id } = (await created.json()).data
    const fetched = (await (await v1(`/v1/agents/${id}`)).json()).data
    const changed = await v1(`/v1/agents/${id}`, { method: 'PATCH', json: { temperature: 1.2 } })
    expect(changed.status).toBe(400)
    expect((await (await v1(`/v1/agents/${id}`)).json()).data.temperature).toBe(fetched.temperature)
    // The agent sent back as it came (its own temperature) is accepted.
    const { createdBy: _by, ...sentBack } = fetched
    const same = await v1(`/v1/agents/${id}`, { method: 'PATCH', json: { ...sentBack, name: 'Live 2' } })
    expect(same.status).toBe(200)
  })

  it('is kept for Gemini Live, which takes it', async () => {
    const created = await create({ ...realtime('gemini'), temperature: 0.2 })
    expect(created.status).toBe(201)
    const { id } = (await created.json()).data
    expect((await (await v1(`/v1/agents/${id}`)).json()).data.temperature).toBe(0.2)
    const changed = await v1(`/v1/agents/${id}`, { method: 'PATCH', json: { temperature: 1.1 } })
    expect(changed.status).toBe(200)
  })
})

describe('fallback STT and TTS', () => {
  it('are catalogue entries other than the primary, kept for pipeline agents only', async () => {
    const created = await create({ ...pipeline, fallbackStt: 'whisper-1', fallbackTts: 'openai-tts-1' })
    expect(created.status).toBe(201)
    const { id } = (await created.json()).data
    expect((await (await v1(`/v1/agents/${id}`)).json()).data).toMatchObject({
      fallbackStt: 'whisper-1',
      fallbackTts: 'openai-tts-1',
    })
    for (const [json, words] of [
      [{ fallbackStt: 'no-such-stt' }, 'fallbackStt must be one of'],
      [{ fallbackTts: 'cartesia-sonic-2' }, 'fallbackTts must differ from tts'],
      [{ fallbackStt: 'deepgram-nova-3' }, 'fallbackStt must differ from stt'],
    ] as const) {
      const refused = await v1(`/v1/agents/${id}`, { method: 'PATCH', json })
      expect(refused.status).toBe(400)
      expect((await refused.json()).error).toContain(words)
    }
    const text = await create({
      name: 'Chat',
      agentArchitecture: 'text',
      systemPrompt: 'Help.',
      fallbackStt: 'whisper-1',
    })
    const textId = (await text.json()).data.id
    expect((await (await v1(`/v1/agents/${textId}`)).json()).data.fallbackStt).toBeNull()
  })
})
