import { inference, initializeLogger, log, type voice } from '@livekit/agents'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { type FakeLlm, startFakeLlm } from '../../server/test/helpers/fake-llm.ts'
import { type Parley, startParley } from '../test/helpers/parley.ts'
import { readDispatch } from './dispatch.ts'
import { buildCallSession } from './session.ts'
import { createWorkerApi, type WorkerApi } from './worker-api.ts'
import '../test/helpers/plugins.ts'

/**
 * opt_out on a phone call in the framework's text mode: the real OpenAI plugin streams the fake
 * model's tool call, a real Parley server lists the callee (POST /v1/calls/{id}/opt-out) and ends
 * the call; the call itself is one placed through POST /v1/calls and the suite's fake LiveKit.
 */

initializeLogger({ pretty: false, level: 'fatal' })

let parley: Parley
let llm: FakeLlm
let api: WorkerApi
let fromPhoneNumberId: string
const vad = new inference.VAD()
const sessions: voice.AgentSession[] = []

beforeAll(async () => {
  llm = await startFakeLlm()
  parley = await startParley({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'sk-fake' } })
  api = createWorkerApi({ apiUrl: parley.server.url, workerToken: parley.workerToken })
  const number = await parley.server.request('/v1/phone-numbers', {
    method: 'POST',
    token: parley.key,
    json: { number: '+14155550100', label: 'Main line', sipTrunkId: 'ST_main' },
  })
  expect(number.status).toBe(201)
  fromPhoneNumberId = (await number.json()).data.id
})

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()))
  llm.reset()
})

afterAll(async () => {
  await parley?.close()
  await llm?.close()
})

/** Places a call to `to` (POST /v1/calls) and runs the dispatched agent in text mode. */
const startPhoneCall = async (agentId: string, to: string) => {
  const placed = await parley.server.request('/v1/calls', {
    method: 'POST',
    token: parley.key,
    json: { fromPhoneNumberId, agentId, to },
  })
  expect(placed.status).toBe(201)
  const callId = (await placed.json()).data.id as string
  const metadata = await vi.waitFor(
    () => {
      const dispatch = parley.livekit
        .callsTo('AgentDispatchService/CreateDispatch')
        .map((call) => String(call.body.metadata))
        .find((text) => text.includes(callId))
      if (!dispatch) throw new Error('not dispatched yet')
      return dispatch
    },
    { timeout: 15_000 },
  )
  const dispatch = readDispatch(metadata)
  if (!dispatch.ok) throw new Error(dispatch.problem)
  const setup = await api.setup(callId)
  const shutdowns: string[] = []
  const built = buildCallSession({
    metadata: dispatch.metadata,
    setup,
    services: { api, allowHosts: [], vad, shutdown: (reason) => shutdowns.push(reason), logger: log() },
  })
  sessions.push(built.session)
  await built.session.start({ agent: built.agent })
  return { callId, ...built, shutdowns }
}

const toolsOffered = () => (llm.requests.at(-1)?.tools ?? []).map((tool) => tool.function.name)

describe('opt_out on a phone call', { timeout: 90_000 }, () => {
  it('lists the callee with the call as the source, says the confirmation and ends the call opted_out', async () => {
    const agent = await parley.makeVoiceAgent({
      greetingType: 'userFirst',
      functionCallingEnabled: true,
      enabledFunctions: ['opt_out'],
    })
    const call = await startPhoneCall(agent.id, '+14155550377')
    llm.queue({
      toolCalls: [
        { name: 'opt_out', args: ['{"confirmation":', '"Understood, you will not be called again."}'] },
      ],
    })
    const result = await call.session.run({ userInput: 'Please never call me again.' }).wait()
    result.expect.containsFunctionCall({ name: 'opt_out' })
    expect(toolsOffered()).toContain('opt_out')

    await vi.waitFor(() => expect(call.shutdowns).toContain('opted_out'), { timeout: 30_000 })
    await parley.callEnds(call.callId, 'opted_out')
    const listed = await parley.server.request('/v1/do-not-call?phoneNumber=%2B14155550377', {
      token: parley.key,
    })
    expect((await listed.json()).data).toMatchObject([
      { phoneNumber: '+14155550377', source: call.callId, sourceKind: 'call' },
    ])
    const record = await parley.readCall(call.callId)
    expect(record.transcript.map(({ role, content }) => [role, content])).toContainEqual([
      'assistant',
      'Understood, you will not be called again.',
    ])
    // The number is refused from now on.
    const again = await parley.server.request('/v1/calls', {
      method: 'POST',
      token: parley.key,
      json: { fromPhoneNumberId, agentId: agent.id, to: '+14155550377' },
    })
    expect(again.status).toBe(409)
  })

  it('is offered only when the agent enables it', async () => {
    const agent = await parley.makeVoiceAgent({ greetingType: 'userFirst', functionCallingEnabled: true })
    const call = await startPhoneCall(agent.id, '+14155550378')
    llm.queue({ text: ['Hello.'] })
    await call.session.run({ userInput: 'Hi' }).wait()
    expect(toolsOffered()).not.toContain('opt_out')
  })
})
