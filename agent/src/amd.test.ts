import { inference, initializeLogger, log, type voice } from '@livekit/agents'
import type { AmdVerdict, DispatchMetadata } from '@parley/shared'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { type FakeLlm, startFakeLlm } from '../../server/test/helpers/fake-llm.ts'
import { type Parley, startParley } from '../test/helpers/parley.ts'
import { readDispatch } from './dispatch.ts'
import { buildCallSession } from './session.ts'
import type { Keypad } from './tools/send-dtmf.ts'
import { createWorkerApi, type EndReason, type WorkerApi } from './worker-api.ts'
import '../test/helpers/plugins.ts'

/**
 * Answering-machine detection on an outbound call, in the framework's text mode: the framework's
 * own `voice.AMD` classifies what the callee's side said with the agent's own model (the real
 * OpenAI plugin against the suite's fake LLM, which answers the classifier's `save_prediction`
 * tool call), and the agent acts on the verdict per its voicemail setting; a real Parley server
 * answers the worker. Without a room there is no audio: what the session's STT would transcribe
 * reaches the detector through the hook the framework's activity calls with each final transcript
 * (`session.amd.onTranscript`), and the callee's answer (`sip.callStatus` active) is a promise the
 * test resolves.
 */

initializeLogger({ pretty: false, level: 'fatal' })

let parley: Parley
let llm: FakeLlm
let api: WorkerApi
const vad = new inference.VAD()
const sessions: voice.AgentSession[] = []

beforeAll(async () => {
  llm = await startFakeLlm()
  parley = await startParley({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'sk-fake' } })
  api = createWorkerApi({ apiUrl: parley.server.url, workerToken: parley.workerToken })
})

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()))
  llm.reset()
})

afterAll(async () => {
  await parley?.close()
  await llm?.close()
})

const VOICEMAIL_GREETING = "Hi, you've reached Sam, leave a message after the tone"
const PERSON = 'Hello? Who is this?'
const MENU = 'Thanks for calling. Press 1 for sales, 2 for support.'

/** The classifier's answer, as a model commits it: the save_prediction tool call. */
const prediction = (label: string) => ({
  toolCalls: [{ name: 'save_prediction', args: [`{"label":"${label}"}`] }],
})

/** An outbound call to a contact as dialled, run in text mode with detection. */
const startOutboundCall = async (agentId: string) => {
  const call = await parley.startCall(agentId)
  const dispatch = readDispatch(call.metadata)
  if (!dispatch.ok) throw new Error(dispatch.problem)
  const metadata: DispatchMetadata = {
    ...dispatch.metadata,
    direction: 'outbound',
    userId: null,
    sipParticipantIdentity: 'contact-1',
    contact: { first_name: 'Sam', phone: '+14155550123' },
  }
  const setup = await api.setup(call.callId)
  const ends: Array<{ reason: EndReason; amdVerdict: AmdVerdict | undefined }> = []
  // The real client; the test notes what each end request said.
  const recording: WorkerApi = {
    ...api,
    end: (callId, reason, amdVerdict) => {
      ends.push({ reason, amdVerdict })
      return api.end(callId, reason, amdVerdict)
    },
  }
  const pressed: string[] = []
  const keypad: Keypad = {
    publishDtmf: async (_code, digit) => void pressed.push(digit),
    wait: async () => {},
  }
  let answer: () => void = () => {}
  const answered = new Promise<void>((resolve) => {
    answer = resolve
  })
  const shutdowns: string[] = []
  const built = buildCallSession({
    metadata,
    setup,
    services: {
      api: recording,
      allowHosts: [],
      vad,
      shutdown: (reason) => shutdowns.push(reason),
      logger: log(),
      keypad,
      waitForAnswer: () => answered,
      // Transcripts come without audio here, so no VAD ends the callee's speech: the framework's
      // 3 s end-of-turn wait would be all of each case's time.
      amdEndOfTurnMs: 100,
    },
  })
  sessions.push(built.session)
  await built.session.start({ agent: built.agent })
  const detection = built.detectAnsweringMachine()
  /** The callee's side says `text`: the final transcript the session's STT would hand the detector. */
  const hear = async (text: string) => {
    await vi.waitFor(() => expect(built.session.amd).not.toBeNull(), { timeout: 10_000 })
    built.session.amd?.onTranscript(text)
  }
  const transcript = async () =>
    (await parley.readCall(call.callId)).transcript.map(({ role, content }) => [role, content])
  return { ...call, ...built, setup, answer, hear, detection, ends, pressed, shutdowns, transcript }
}

/** The classifier's request: the framework's prompt, the callee's words, the agent's own model. */
const classifierRequest = () =>
  llm.requests.find((request) =>
    (request.tools ?? []).some((tool) => tool.function.name === 'save_prediction'),
  )

describe('answering-machine detection', { timeout: 60_000 }, () => {
  it('a voicemail greeting: the message is left after it, then the call ends voicemail_left', async () => {
    const agent = await parley.makeVoiceAgent({
      greetingType: 'agentFirst',
      greetingMessage: 'Hi, this is Parley calling about your order.',
      voicemail: {
        action: 'leave_message',
        message: 'Hi {{first_name}}, this is Parley about your order. Please call us back.',
      },
    })
    const call = await startOutboundCall(agent.id)
    llm.queue(prediction('machine-vm'))
    call.answer()
    await call.hear(VOICEMAIL_GREETING)
    const run = await call.detection
    expect(run).toMatchObject({ verdict: 'voicemail', action: { kind: 'leave_message' } })

    const request = classifierRequest()
    expect(request?.model).toBe(call.setup.llm?.model)
    expect(request?.model).toBeTruthy()
    expect(JSON.stringify(request?.messages)).toContain('Classify the call greeting')
    expect(request?.messages.at(-1)).toMatchObject({ role: 'user', content: VOICEMAIL_GREETING })

    await vi.waitFor(() => expect(call.shutdowns).toContain('voicemail_left'), { timeout: 15_000 })
    expect(call.ends).toEqual([{ reason: 'voicemail_left', amdVerdict: 'voicemail' }])
    // The message with the contact's name, and no greeting: a machine is not greeted.
    expect(await call.transcript()).toEqual([
      ['assistant', 'Hi Sam, this is Parley about your order. Please call us back.'],
    ])
    expect((await parley.readCall(call.callId)).status).toBe('ended')
    // Only the classifier asked the model anything.
    expect(llm.requests).toHaveLength(1)
  })

  it('a voicemail greeting with hang_up: the call ends voicemail_hung_up, nothing said', async () => {
    const agent = await parley.makeVoiceAgent({
      greetingType: 'agentFirst',
      greetingMessage: 'Hi, this is Parley.',
      lastMessage: 'Goodbye.',
    })
    const call = await startOutboundCall(agent.id)
    llm.queue(prediction('machine-vm'))
    call.answer()
    await call.hear(VOICEMAIL_GREETING)
    expect(await call.detection).toMatchObject({ verdict: 'voicemail', action: { kind: 'end' } })
    await vi.waitFor(() => expect(call.shutdowns).toContain('voicemail_hung_up'), { timeout: 15_000 })
    expect(call.ends).toEqual([{ reason: 'voicemail_hung_up', amdVerdict: 'voicemail' }])
    expect(await call.transcript()).toEqual([])
  })

  it('a person: the verdict is human, the greeting is said and the conversation goes on', async () => {
    const agent = await parley.makeVoiceAgent({
      greetingType: 'agentFirst',
      greetingMessage: 'Hi, this is Parley calling about your order.',
      functionCallingEnabled: true,
      enabledFunctions: ['end_call'],
    })
    const call = await startOutboundCall(agent.id)
    llm.queue(prediction('human'))
    call.answer()
    await call.hear(PERSON)
    expect(await call.detection).toMatchObject({ verdict: 'human', action: { kind: 'converse' } })
    await vi.waitFor(
      async () =>
        expect(await call.transcript()).toEqual([
          ['assistant', 'Hi, this is Parley calling about your order.'],
        ]),
      { timeout: 15_000 },
    )

    llm.queue({ text: ['It is Parley, about the order you placed yesterday.'] })
    const result = await call.session.run({ userInput: PERSON }).wait()
    result.expect.containsMessage({ role: 'assistant' })
    expect(llm.requests.at(-1)?.messages.at(-1)).toMatchObject({ role: 'user', content: PERSON })
    expect(call.shutdowns).toEqual([])
    expect(call.ends).toEqual([])

    // Any later end tells the server what detection decided.
    llm.queue({ toolCalls: [{ name: 'end_call', args: ['{}'] }] })
    await call.session.run({ userInput: 'Thanks, bye.' }).wait()
    await vi.waitFor(() => expect(call.ends).toEqual([{ reason: 'agent_ended', amdVerdict: 'human' }]), {
      timeout: 15_000,
    })
  })

  it('a phone menu with navigate: the agent gets send_dtmf and presses through', async () => {
    const agent = await parley.makeVoiceAgent({ greetingType: 'agentFirst', greetingMessage: 'Hi there.' })
    const call = await startOutboundCall(agent.id)
    llm.queue(
      prediction('machine-ivr'),
      { toolCalls: [{ name: 'send_dtmf', args: ['{"digits":"2"}'] }] },
      { text: ['One moment.'] },
    )
    call.answer()
    await call.hear(MENU)
    expect(await call.detection).toMatchObject({ verdict: 'phone_menu', action: { kind: 'navigate' } })
    await vi.waitFor(() => expect(call.pressed).toEqual(['2']), { timeout: 15_000 })
    // The agent's request: told what the menu said, with the keypad it did not enable itself.
    const asked = llm.requests.find((request) =>
      (request.tools ?? []).some((tool) => tool.function.name === 'send_dtmf'),
    )
    expect(JSON.stringify(asked?.messages)).toContain('Press 1 for sales, 2 for support.')
    expect(call.shutdowns).toEqual([])
    expect(await call.transcript()).not.toContainEqual(['assistant', 'Hi there.'])
  })

  it('a phone menu with hang_up: the call ends phone_menu', async () => {
    const agent = await parley.makeVoiceAgent({
      greetingType: 'userFirst',
      voicemail: { action: 'hang_up', onPhoneMenu: 'hang_up' },
    })
    const call = await startOutboundCall(agent.id)
    llm.queue(prediction('machine-ivr'))
    call.answer()
    await call.hear(MENU)
    expect(await call.detection).toMatchObject({ verdict: 'phone_menu' })
    await vi.waitFor(() => expect(call.shutdowns).toContain('phone_menu'), { timeout: 15_000 })
    expect(call.ends).toEqual([{ reason: 'phone_menu', amdVerdict: 'phone_menu' }])
  })

  it('a box that takes no message: the call ends with the verdict unavailable', async () => {
    const agent = await parley.makeVoiceAgent({
      greetingType: 'userFirst',
      voicemail: { action: 'leave_message', message: 'Please call us back.' },
    })
    const call = await startOutboundCall(agent.id)
    llm.queue(prediction('machine-unavailable'))
    call.answer()
    await call.hear('The mailbox is full and cannot accept any messages. Goodbye.')
    expect(await call.detection).toMatchObject({ verdict: 'unavailable' })
    await vi.waitFor(
      () => expect(call.ends).toEqual([{ reason: 'voicemail_hung_up', amdVerdict: 'unavailable' }]),
      {
        timeout: 15_000,
      },
    )
    expect(await call.transcript()).toEqual([])
  })
})
