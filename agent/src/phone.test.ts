import { inference, initializeLogger, log, type voice } from '@livekit/agents'
import type { DispatchMetadata } from '@parley/shared'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { type FakeLlm, startFakeLlm } from '../../server/test/helpers/fake-llm.ts'
import { type Parley, startParley } from '../test/helpers/parley.ts'
import { readDispatch } from './dispatch.ts'
import { buildCallSession, type WarmTransfer } from './session.ts'
import type { Keypad } from './tools/send-dtmf.ts'
import { createWorkerApi, type WorkerApi } from './worker-api.ts'
import '../test/helpers/plugins.ts'

/**
 * The phone line in the framework's text mode: transfer_call (cold through the server and the
 * suite's fake LiveKit; warm through the job's warm-transfer port, here a stand-in for the
 * framework's WarmTransferTask, which needs a LiveKit room), send_dtmf (through the keypad port:
 * the job's publishes on the room's local participant), and the caller's key presses as input.
 * The real OpenAI plugin streams the fake model's tool calls; a real Parley server answers.
 */

initializeLogger({ pretty: false, level: 'fatal' })

let parley: Parley
let llm: FakeLlm
let api: WorkerApi
const vad = new inference.VAD()
const sessions: voice.AgentSession[] = []

const SALES = {
  name: 'Sales',
  destination: '+14155550199',
  whenToUse: 'The caller wants to buy',
  mode: 'cold',
}
const DESK = { name: 'Front desk', destination: '+14155550188', whenToUse: 'Anything else', mode: 'warm' }

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
})

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()))
  llm.reset()
})

afterAll(async () => {
  await parley?.close()
  await llm?.close()
})

/** A keypad that records the keys and the waits instead of sending tones. */
const recordingKeypad = () => {
  const pressed: Array<[number, string]> = []
  const waits: number[] = []
  const keypad: Keypad = {
    publishDtmf: async (code, digit) => void pressed.push([code, digit]),
    wait: async (ms) => void waits.push(ms),
  }
  return { keypad, pressed, waits }
}

/** A web call as dispatched, or (phone) as a dialled contact's call would be, run in text mode. */
const startTextCall = async (
  agentId: string,
  {
    phone = false,
    keypad = null,
    warmTransfer = null,
  }: {
    phone?: boolean
    keypad?: Keypad | null
    warmTransfer?: WarmTransfer | null
  } = {},
) => {
  const call = await parley.startCall(agentId)
  const dispatch = readDispatch(call.metadata)
  if (!dispatch.ok) throw new Error(dispatch.problem)
  const metadata: DispatchMetadata = phone
    ? { ...dispatch.metadata, direction: 'outbound', userId: null, sipParticipantIdentity: 'contact-1' }
    : dispatch.metadata
  const setup = await api.setup(call.callId)
  const shutdowns: string[] = []
  const built = buildCallSession({
    metadata,
    setup,
    services: {
      api,
      allowHosts: [],
      vad,
      shutdown: (reason) => shutdowns.push(reason),
      logger: log(),
      keypad,
      warmTransfer,
    },
  })
  sessions.push(built.session)
  await built.session.start({ agent: built.agent })
  return { ...call, ...built, shutdowns }
}

const toolsOffered = (index = -1) => (llm.requests.at(index)?.tools ?? []).map((tool) => tool.function.name)

describe('transfer_call', { timeout: 60_000 }, () => {
  it('cold: the server dials the person in; the agent leaves once its turn is said, the call goes on', async () => {
    const agent = await parley.makeVoiceAgent({
      greetingType: 'userFirst',
      transferDestinations: [SALES, DESK],
    })
    const call = await startTextCall(agent.id)
    llm.queue({
      text: ['Putting you through to sales.'],
      toolCalls: [{ name: 'transfer_call', args: ['{"destination":"Sales"}'] }],
    })
    const result = await call.session.run({ userInput: 'I want to buy.' }).wait()
    result.expect.containsFunctionCall({ name: 'transfer_call', args: { destination: 'Sales' } })

    const offered = llm.requests[0]?.tools as unknown as Array<{
      function: { name: string; parameters: unknown; description: string }
    }>
    const tool = offered.find((item) => item.function.name === 'transfer_call')
    expect(tool?.function.parameters).toMatchObject({
      properties: { destination: { type: 'string', enum: ['Sales', 'Front desk'] } },
      required: ['destination'],
    })
    expect(tool?.function.description).toContain('Sales: The caller wants to buy')

    await vi.waitFor(() => expect(call.shutdowns).toContain('transferred'), { timeout: 15_000 })
    const record = await parley.readCall(call.callId)
    const { transfers } = record as unknown as { transfers: Array<Record<string, unknown>> }
    expect(transfers).toMatchObject([
      { destinationName: 'Sales', mode: 'cold', method: 'dial', status: 'transferred' },
    ])
    expect(record.status).toBe('active')
    expect(parley.livekit.dialsTo('+14155550199')).toBe(1)
    // The tool answered nothing: the model was not asked for another reply.
    expect(llm.requests).toHaveLength(1)
  })

  it('cold: a person who does not answer is the model’s to tell the caller; the agent stays', async () => {
    const agent = await parley.makeVoiceAgent({
      greetingType: 'userFirst',
      transferDestinations: [{ ...SALES, destination: '+14155550166' }],
    })
    parley.livekit.scriptSip('+14155550166', { result: 'busy' })
    const call = await startTextCall(agent.id)
    llm.queue(
      { toolCalls: [{ name: 'transfer_call', args: ['{"destination":"Sales"}'] }] },
      { text: ['Sales is not answering; I can help you myself.'] },
    )
    const result = await call.session.run({ userInput: 'Sales please.' }).wait()
    result.expect.nextEvent().isFunctionCall({ name: 'transfer_call' })
    const output = result.expect.nextEvent().isFunctionCallOutput({ isError: true })
    expect(output.event().item.output).toBe(
      'Sales did not answer. Tell the caller and carry on helping them yourself.',
    )
    result.expect.nextEvent().isMessage({ role: 'assistant' })
    expect(call.shutdowns).toEqual([])
  })

  it('warm: the warm transfer runs on the server’s line and its result is recorded; connected, the agent leaves', async () => {
    const agent = await parley.makeVoiceAgent({ greetingType: 'userFirst', transferDestinations: [DESK] })
    const lines: unknown[] = []
    const warmTransfer: WarmTransfer = async ({ line, agent: current }) => {
      lines.push({ line, agentId: current.runtime.id })
      return 'transferred'
    }
    const call = await startTextCall(agent.id, { phone: true, warmTransfer })
    llm.queue({ toolCalls: [{ name: 'transfer_call', args: ['{"destination":"Front desk"}'] }] })
    await call.session.run({ userInput: 'Can I talk to someone?' }).wait()
    expect(lines).toEqual([
      {
        line: {
          sipTrunkId: 'ST_main',
          fromNumber: '+14155550100',
          to: '+14155550188',
          ringingTimeoutSeconds: 30,
        },
        agentId: agent.id,
      },
    ])
    await vi.waitFor(() => expect(call.shutdowns).toContain('transferred'), { timeout: 15_000 })
    const { transfers } = (await parley.readCall(call.callId)) as unknown as {
      transfers: Array<Record<string, unknown>>
    }
    expect(transfers).toMatchObject([{ mode: 'warm', status: 'transferred', finishedAt: expect.any(String) }])
  })

  it('warm: a person who does not answer is recorded, and the agent tells the caller and goes on', async () => {
    const agent = await parley.makeVoiceAgent({ greetingType: 'userFirst', transferDestinations: [DESK] })
    const call = await startTextCall(agent.id, { warmTransfer: async () => 'no_answer' })
    llm.queue(
      { toolCalls: [{ name: 'transfer_call', args: ['{"destination":"Front desk"}'] }] },
      { text: ['Nobody at the front desk picked up, but I can help.'] },
    )
    const result = await call.session.run({ userInput: 'Front desk, please.' }).wait()
    result.expect.nextEvent().isFunctionCall({ name: 'transfer_call' })
    const output = result.expect.nextEvent().isFunctionCallOutput({ isError: true })
    expect(output.event().item.output).toContain('Front desk did not answer')
    result.expect.nextEvent().isMessage({ role: 'assistant' })
    expect(call.shutdowns).toEqual([])
    const { transfers } = (await parley.readCall(call.callId)) as unknown as {
      transfers: Array<Record<string, unknown>>
    }
    expect(transfers).toMatchObject([{ mode: 'warm', status: 'no_answer' }])
  })

  it('is not offered to an agent without destinations', async () => {
    const agent = await parley.makeVoiceAgent({ greetingType: 'userFirst' })
    const call = await startTextCall(agent.id)
    llm.queue({ text: ['Hello.'] })
    await call.session.run({ userInput: 'Hi' }).wait()
    expect(toolsOffered()).not.toContain('transfer_call')
  })
})

describe('the keypad', { timeout: 60_000 }, () => {
  it('send_dtmf presses the keys in order, a gap after each and half a second for w', async () => {
    const agent = await parley.makeVoiceAgent({
      greetingType: 'userFirst',
      functionCallingEnabled: true,
      enabledFunctions: ['send_dtmf'],
    })
    const { keypad, pressed, waits } = recordingKeypad()
    const call = await startTextCall(agent.id, { phone: true, keypad })
    llm.queue({ toolCalls: [{ name: 'send_dtmf', args: ['{"digits":', '"1w2#"}'] }] }, { text: ['Done.'] })
    const result = await call.session.run({ userInput: 'Press one, wait, then two and hash.' }).wait()
    result.expect.nextEvent().isFunctionCall({ name: 'send_dtmf', args: { digits: '1w2#' } })
    result.expect.nextEvent().isFunctionCallOutput({ output: JSON.stringify('Pressed 1w2#') })
    expect(pressed).toEqual([
      [1, '1'],
      [2, '2'],
      [11, '#'],
    ])
    expect(waits).toEqual([300, 500, 300, 300])

    llm.queue({ toolCalls: [{ name: 'send_dtmf', args: ['{"digits":"12x"}'] }] }, { text: ['Sorry.'] })
    const bad = await call.session.run({ userInput: 'Press 12x' }).wait()
    bad.expect.nextEvent().isFunctionCall({ name: 'send_dtmf' })
    bad.expect.nextEvent().isFunctionCallOutput({ isError: true })
    expect(pressed).toHaveLength(3)
  })

  it('send_dtmf is offered on a phone call only', async () => {
    const agent = await parley.makeVoiceAgent({
      greetingType: 'userFirst',
      functionCallingEnabled: true,
      enabledFunctions: ['send_dtmf'],
    })
    const call = await startTextCall(agent.id)
    llm.queue({ text: ['Hello.'] })
    await call.session.run({ userInput: 'Hi' }).wait()
    expect(toolsOffered()).not.toContain('send_dtmf')
  })

  it('the caller’s key presses reach the agent as their input and the transcript keeps them', async () => {
    const agent = await parley.makeVoiceAgent({ greetingType: 'userFirst' })
    const call = await startTextCall(agent.id, { phone: true, keypad: recordingKeypad().keypad })
    llm.queue({ text: ['You chose billing.'] })
    call.keyPressed('2')
    await vi.waitFor(
      async () =>
        expect(
          (await parley.readCall(call.callId)).transcript.map(({ role, content }) => [role, content]),
        ).toEqual([
          ['user', 'The caller pressed 2'],
          ['assistant', 'You chose billing.'],
        ]),
      { timeout: 15_000 },
    )
    expect(llm.requests[0]?.messages.at(-1)).toMatchObject({ role: 'user', content: 'The caller pressed 2' })
    // Keys pressed together are heard together.
    llm.queue({ text: ['Got your account number.'] })
    for (const digit of '407#') call.keyPressed(digit)
    await vi.waitFor(
      () =>
        expect(llm.requests.at(-1)?.messages.at(-1)).toMatchObject({
          role: 'user',
          content: 'The caller pressed 4 0 7 #',
        }),
      { timeout: 15_000 },
    )
  })
})
