import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postLiveKitWebhook } from '../../test/helpers/fake-livekit.ts'
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startVoiceSession, startVoiceStack, type VoiceStack } from '../../test/helpers/voice.ts'

/**
 * Post-call analysis of every call runs on a real model: a pipeline agent's own, a realtime
 * agent's analysisModel (the catalogue's default without one). Where no model can run, the call
 * has no analysis, says why, and no call.analyzed is sent.
 */
let stack: VoiceStack
let receiver: HttpTarget
let team: Awaited<ReturnType<typeof createTeam>>
let key: string

beforeAll(async () => {
  receiver = await startHttpTarget((_request, response) => response.writeHead(200).end('ok'))
  stack = await startVoiceStack({
    env: { OUTBOUND_ALLOW_HOSTS: receiver.hostAndPort, WEBHOOK_RETRY_BASE_MS: '50' },
  })
  team = await createTeam(stack.server)
  key = await secretKeyFor(stack.server, team.owner)
})
afterAll(async () => {
  await stack?.close()
  await receiver?.close()
})

const api = (path: string, init: { method?: string; json?: unknown } = {}) =>
  stack.server.request(path, { ...init, headers: { 'x-api-key': key } })

const eventsAbout = (id: string) =>
  receiver.received
    .map((request) => JSON.parse(request.body) as { event: string; data: Record<string, unknown> })
    .filter((payload) => Object.values(payload.data).includes(id))
    .map((payload) => payload.event)

/** A call of the agent with two lines said, then ended by LiveKit's room_finished. */
const finishedCall = async (agentId: string) => {
  const call = await startVoiceSession(stack.server, { key, agentId })
  const said = await stack.server.request(`/v1/calls/${call.callId}/transcript`, {
    method: 'POST',
    token: stack.workerToken,
    json: {
      lines: [
        { role: 'assistant', content: 'Hello, Northwind Shop.' },
        { role: 'user', content: 'Where is my parcel?' },
      ],
    },
  })
  expect(said.status).toBe(200)
  return call
}

const endCall = (roomName: string) =>
  postLiveKitWebhook(stack.server.url, stack.fake, { event: 'room_finished', room: { name: roomName } })

const readCall = async (callId: string) => (await (await api(`/v1/calls/${callId}`)).json()).data

const ANSWER = '{"summary": "Asked where a parcel is.", "sentiment": "neutral", "outcome": "Status given"}'

describe('the analysis model', () => {
  it('is validated on the agent: a catalogue text model, only kept for realtime agents', async () => {
    const created = await api('/v1/agents', {
      method: 'POST',
      json: {
        name: 'Live',
        agentArchitecture: 'realtime',
        realtimeProvider: 'openai',
        voiceId: 'alloy',
        systemPrompt: 'You help.',
        analysisModel: 'gpt-4.1-mini',
      },
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()).data
    expect((await (await api(`/v1/agents/${id}`)).json()).data.analysisModel).toBe('gpt-4.1-mini')
    for (const analysisModel of ['no-such-model', 'offline']) {
      const refused = await api(`/v1/agents/${id}`, { method: 'PATCH', json: { analysisModel } })
      expect(refused.status).toBe(400)
      expect(JSON.stringify(await refused.json())).toContain('analysisModel must be one of')
    }
    // A pipeline agent is analysed by its own model: the field is not kept.
    const pipeline = await makeAgent(stack.server, team.owner, {
      agentArchitecture: 'pipeline',
      analysisModel: 'gpt-4.1-mini',
    })
    expect(pipeline.analysisModel).toBeNull()
  })

  it("analyses a realtime agent's call with its analysisModel, then sends call.analyzed", async () => {
    const agent = await makeAgent(stack.server, team.owner, {
      agentArchitecture: 'realtime',
      postCallAnalysis: true,
      analysisModel: 'gpt-4.1-mini',
      webhookUrl: `${receiver.origin}/hooks`,
    })
    const call = await finishedCall(agent.id)
    stack.llm.queue({ text: [ANSWER] })
    await endCall(call.room_name)
    await expect.poll(async () => (await readCall(call.callId)).analysis, { timeout: 20_000 }).not.toBeNull()
    expect(await readCall(call.callId)).toMatchObject({
      analysis: { summary: 'Asked where a parcel is.', sentiment: 'neutral', outcome: 'Status given' },
      analysisStatus: 'analyzed',
      analysisError: null,
    })
    const request = stack.llm.requests.find((sent) =>
      JSON.stringify(sent.messages).includes('user: Where is my parcel?'),
    )
    expect(request?.model).toBe('gpt-4.1-mini')
    await expect
      .poll(() => eventsAbout(call.callId), { timeout: 20_000 })
      .toEqual(['call.ended', 'call.analyzed'])
  })

  it("uses the catalogue's default text model for a realtime agent that names none", async () => {
    const agent = await makeAgent(stack.server, team.owner, {
      agentArchitecture: 'realtime',
      postCallAnalysis: true,
    })
    expect(agent.analysisModel).toBeNull()
    const before = stack.llm.requests.length
    const call = await finishedCall(agent.id)
    stack.llm.queue({ text: [ANSWER] })
    await endCall(call.room_name)
    await expect
      .poll(async () => (await readCall(call.callId)).analysisStatus, { timeout: 20_000 })
      .toBe('analyzed')
    expect(stack.llm.requests.slice(before).map((sent) => sent.model)).toEqual([
      stack.server.ctx.catalogue.defaults.model,
    ])
  })
})

describe('a call no model can analyse', () => {
  it('has no analysis when the provider fails, says why, and sends no call.analyzed', async () => {
    const agent = await makeAgent(stack.server, team.owner, {
      agentArchitecture: 'pipeline',
      postCallAnalysis: true,
      webhookUrl: `${receiver.origin}/hooks`,
    })
    const call = await finishedCall(agent.id)
    stack.llm.queue({ status: 500 })
    await endCall(call.room_name)
    await expect
      .poll(async () => (await readCall(call.callId)).analysisStatus, { timeout: 20_000 })
      .toBe('skipped')
    const read = await readCall(call.callId)
    expect(read.analysis).toBeNull()
    expect(read.analysisError).toMatch(/the analysis model failed/)
    expect(JSON.stringify(read)).not.toContain('Offline analysis')
    await expect.poll(() => eventsAbout(call.callId), { timeout: 20_000 }).toEqual(['call.ended'])
    // Nothing was charged for a request the provider refused.
    const charged = await stack.server.ctx.db
      .selectFrom('credit_ledger')
      .select('reason')
      .where('reference', '=', call.callId)
      .where('reason', '=', 'Call post-call analysis')
      .execute()
    expect(charged).toEqual([])
  })

  it('is skipped, not given the offline stand-in text, when the agent runs on the stand-in', async () => {
    const agent = await makeAgent(stack.server, team.owner, {
      agentArchitecture: 'pipeline',
      model: 'offline',
      postCallAnalysis: true,
      webhookUrl: `${receiver.origin}/hooks`,
    })
    const before = stack.llm.requests.length
    const call = await finishedCall(agent.id)
    await endCall(call.room_name)
    await expect
      .poll(async () => (await readCall(call.callId)).analysisStatus, { timeout: 20_000 })
      .toBe('skipped')
    const read = await readCall(call.callId)
    expect(read).toMatchObject({ analysis: null, analysisError: expect.stringContaining('offline') })
    expect(stack.llm.requests.length).toBe(before)
    await expect.poll(() => eventsAbout(call.callId), { timeout: 20_000 }).toEqual(['call.ended'])
  })
})
