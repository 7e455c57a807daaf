import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createChatSession, createTextAgent, sendChat } from '../../test/helpers/chat.ts'
import type { FakeLlm } from '../../test/helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import type { TestServer } from '../../test/helpers/test-server.ts'
import {
  backdateCall,
  startVoiceSession,
  startVoiceStack,
  type VoiceStack,
} from '../../test/helpers/voice.ts'

let stack: VoiceStack
let WORKER_TOKEN: string
let llm: FakeLlm
let server: TestServer

beforeAll(async () => {
  stack = await startVoiceStack()
  ;({ server, llm, workerToken: WORKER_TOKEN } = stack)
})
afterAll(() => stack?.close())

const today = () => new Date().toISOString().slice(0, 10)
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10)

describe('GET /v1/analytics', () => {
  it('counts conversations, messages, calls, minutes, cost and outcomes per agent and day', async () => {
    const team = await createTeam(server)
    const key = await secretKeyFor(server, team.owner)
    const textAgent = await createTextAgent(server, key, 'Shop')
    const voiceAgent = (await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })).id
    for (const said of ['one', 'two']) {
      const session = await createChatSession(server, { key, agentId: textAgent })
      llm.queue({ text: ['Answer.'], usage: { input: 1000, output: 1000 } })
      await sendChat(server, session, said)
    }
    const call = await startVoiceSession(server, { key, agentId: voiceAgent })
    await backdateCall(server, call.room_name, 120)
    const ended = await server.request(`/v1/calls/${call.callId}/end`, {
      method: 'POST',
      token: WORKER_TOKEN,
      json: { reason: 'agent_ended' },
    })
    expect(ended.status).toBe(200)

    const response = await server.request(`/v1/analytics?from=${today()}&to=${today()}`, {
      headers: { 'x-api-key': key },
    })
    expect(response.status).toBe(200)
    const { data } = (await response.json()) as { data: Array<Record<string, unknown>> }
    const chat = data.find((row) => row.agentId === textAgent)
    expect(chat).toMatchObject({ date: today(), conversations: 2, messages: 4, calls: 0 })
    expect(Number(chat?.replyCostUsd)).toBeGreaterThan(0)
    expect(Number(chat?.averageFirstReplySeconds)).toBeGreaterThanOrEqual(0)
    expect(chat?.outcomes).toEqual({ 'conversation.active': 2 })
    const voice = data.find((row) => row.agentId === voiceAgent)
    expect(voice).toMatchObject({ conversations: 0, calls: 1, outcomes: { 'call.agent_ended': 1 } })
    expect(Number(voice?.callMinutes)).toBeGreaterThanOrEqual(2)
    expect(Number(voice?.callCostUsd)).toBeGreaterThan(0)

    const narrowed = await server.request(
      `/v1/analytics?from=${today()}&to=${today()}&agentId=${voiceAgent}`,
      {
        headers: { 'x-api-key': key },
      },
    )
    expect(((await narrowed.json()) as { data: unknown[] }).data).toHaveLength(1)
    const defaulted = await server.request('/v1/analytics', { headers: { 'x-api-key': key } })
    expect(defaulted.status).toBe(200)
    const lastThirtyDays = ((await defaulted.json()) as { data: unknown[] }).data
    expect(lastThirtyDays).toEqual(data)
    const before = await server.request(`/v1/analytics?to=${daysAgo(1)}`, { headers: { 'x-api-key': key } })
    expect(((await before.json()) as { data: unknown[] }).data).toEqual([])
    const stranger = await secretKeyFor(server, (await createTeam(server)).owner)
    const theirs = await server.request(`/v1/analytics?from=${today()}&to=${today()}`, {
      headers: { 'x-api-key': stranger },
    })
    expect(((await theirs.json()) as { data: unknown[] }).data).toEqual([])
  })

  it('answers 400 for days the wrong way round, a range over a year, or an unknown filter', async () => {
    const key = await secretKeyFor(server, (await createTeam(server)).owner)
    for (const query of [
      'from=2026-11-24&to=2026-11-23',
      'from=2024-01-01&to=2026-01-01',
      'from=2026-11-24&to=2026-11-24&x=1',
      'from=2024-01-01',
      'from=24-11-2026',
    ])
      expect((await server.request(`/v1/analytics?${query}`, { headers: { 'x-api-key': key } })).status).toBe(
        400,
      )
  })
})
