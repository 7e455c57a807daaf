import { inference, initializeLogger, log, type voice } from '@livekit/agents'
import type { AmdVerdict } from '@parley/shared'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { registerPhoneNumber } from '../../server/test/helpers/batch.ts'
import { setBalanceMicros } from '../../server/test/helpers/billing.ts'
import { type FakeLlm, startFakeLlm } from '../../server/test/helpers/fake-llm.ts'
import { startFakeDeepgram, startFakeRealtime } from '../test/helpers/fake-realtime.ts'
import { type Parley, startParley } from '../test/helpers/parley.ts'
import { readDispatch } from './dispatch.ts'
import { buildCallSession } from './session.ts'
import { createWorkerApi, type EndReason, type WorkerApi } from './worker-api.ts'
import '../test/helpers/plugins.ts'

/**
 * Answering-machine detection for a realtime agent, in the framework's text mode. The agent's
 * speech-to-speech model is the real OpenAI Realtime plugin against a fake of OpenAI's Realtime
 * WebSocket; it has no text completion, so the framework's `voice.AMD` classifies with the text
 * model the server chose for detection (the agent's analysisModel, or the catalogue's default:
 * the real OpenAI plugin against the suite's fake LLM) and hears the callee through its own side
 * STT, the catalogue's default (the real Deepgram plugin against a fake of Deepgram's live
 * WebSocket, which sends the callee's words as final `Results`). The call is a real outbound call
 * placed through the API (the fake LiveKit answers it); the callee's answer (`sip.callStatus`
 * active) is a promise the test resolves. Without a room no audio flows: the side STT's
 * transcripts and the realtime server's own events stand in for the callee's voice.
 */

initializeLogger({ pretty: false, level: 'fatal' })

let parley: Parley
let llm: FakeLlm
let realtime: Awaited<ReturnType<typeof startFakeRealtime>>
let deepgram: Awaited<ReturnType<typeof startFakeDeepgram>>
let api: WorkerApi
let fromPhoneNumberId: string
let dialled = 0
const vad = new inference.VAD()
const sessions: voice.AgentSession[] = []

beforeAll(async () => {
  llm = await startFakeLlm()
  realtime = await startFakeRealtime()
  deepgram = await startFakeDeepgram()
  parley = await startParley({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'sk-fake' } })
  api = createWorkerApi({ apiUrl: parley.server.url, workerToken: parley.workerToken })
  fromPhoneNumberId = await registerPhoneNumber(parley.server, parley.key, {
    number: '+14155550100',
    sipTrunkId: 'ST_outbound',
  })
  await setBalanceMicros(parley.server, { organizationId: parley.team.organizationId, micros: 10_000_000 })
})

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()))
  llm.reset()
  realtime.reset()
})

afterAll(async () => {
  await parley?.close()
  await llm?.close()
  await realtime?.close()
  await deepgram?.close()
})

const VOICEMAIL_GREETING = "Hi, you've reached Sam, leave a message after the tone"
const PERSON = 'Hello? Who is this?'

/**
 * The classifier's answer, as a model commits it (the save_prediction tool call), to whichever
 * request offers that tool: the server's post-call analysis of an earlier test's call may reach
 * the same fake model at any time, and gets an ordinary reply.
 */
const classifyAs = (label: string) =>
  llm.setFallback((request) =>
    (request.tools ?? []).some((tool) => tool.function.name === 'save_prediction')
      ? { toolCalls: [{ name: 'save_prediction', args: [`{"label":"${label}"}`] }] }
      : { text: ['{}'] },
  )

const realtimeAgent = (overrides: Record<string, unknown>) =>
  parley.makeVoiceAgent({ agentArchitecture: 'realtime', realtimeProvider: 'openai', ...overrides })

/** A real outbound call to a contact through POST /v1/calls, its agent's session run in text mode. */
const placeOutboundCall = async (agentId: string) => {
  const to = `+1415555${String(2000 + ++dialled)}`
  parley.livekit.scriptSip(to, { result: 'answered' })
  const placed = await parley.server.request('/v1/calls', {
    method: 'POST',
    token: parley.key,
    json: { fromPhoneNumberId, to, agentId, variables: { first_name: 'Sam' } },
  })
  expect(placed.status).toBe(201)
  const callId = ((await placed.json()) as { data: { id: string } }).data.id
  // The server dials in the background and dispatches the agent to the call's room.
  const metadata = await vi.waitFor(
    () => {
      const found = parley.livekit
        .callsTo('AgentDispatchService/CreateDispatch')
        .map((dispatch) => readDispatch(String(dispatch.body.metadata)))
        .flatMap((read) => (read.ok && read.metadata.callId === callId ? [read.metadata] : []))[0]
      if (!found) throw new Error(`no dispatch for call ${callId}`)
      return found
    },
    { timeout: 10_000 },
  )
  expect(metadata.direction).toBe('outbound')
  const served = await api.setup(callId)
  // What the server chose, before the test points the WebSockets at its fakes: the realtime
  // endpoint's LLM_BASE_URL shortcut serves HTTP only, and Deepgram's is a public host.
  const chosen = structuredClone(served)
  const setup = {
    ...served,
    realtime: served.realtime && { ...served.realtime, baseUrl: realtime.baseUrl },
    amd: served.amd && {
      ...served.amd,
      stt: served.amd.stt && { ...served.amd.stt, baseUrl: deepgram.baseUrl },
    },
  }
  const ends: Array<{ reason: EndReason; amdVerdict: AmdVerdict | undefined }> = []
  const recording: WorkerApi = {
    ...api,
    end: (id, reason, amdVerdict) => {
      ends.push({ reason, amdVerdict })
      return api.end(id, reason, amdVerdict)
    },
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
      keypad: { publishDtmf: async () => {}, wait: async () => {} },
      waitForAnswer: () => answered,
      // Transcripts come without audio here, so no VAD ends the callee's speech: the framework's
      // 3 s end-of-turn wait would be all of each case's time.
      amdEndOfTurnMs: 100,
    },
  })
  sessions.push(built.session)
  const listening = deepgram.connections.length
  await built.session.start({ agent: built.agent })
  const detection = built.detectAnsweringMachine()
  /** The callee says `text`: the side STT transcribes it, and the realtime server hears it too. */
  const hear = async (text: string) => {
    // Detection's own STT connects once the callee answered.
    await vi.waitFor(() => expect(deepgram.connections.length).toBe(listening + 1), { timeout: 10_000 })
    realtime.hearCallee(text, 'Hello! How can I help you today?')
    deepgram.say(text)
  }
  const transcript = async () =>
    (await parley.readCall(callId)).transcript.map(({ role, content }) => [role, content])
  /** What the client asked the realtime model to say, in order. */
  const responsesAsked = () =>
    realtime.events
      .filter((event) => event.type === 'response.create')
      .map((event) => String((event.response as { instructions?: string } | undefined)?.instructions ?? ''))
  return { callId, chosen, answer, hear, detection, ends, shutdowns, transcript, responsesAsked, ...built }
}

/** What the agent said on the call, in order, as the server keeps it. */
const said = async (call: { transcript: () => Promise<string[][]> }) =>
  (await call.transcript()).filter(([role]) => role === 'assistant').map(([, content]) => content)

const classifierRequest = () =>
  llm.requests.find((request) =>
    (request.tools ?? []).some((tool) => tool.function.name === 'save_prediction'),
  )

describe('answering-machine detection for realtime agents', { timeout: 60_000 }, () => {
  it('chooses the analysisModel and the default STT; a voicemail gets the message, then the call ends', async () => {
    const agent = await realtimeAgent({
      analysisModel: 'llama-3.3-70b-versatile',
      greetingType: 'agentFirst',
      greetingMessage: 'Hi, this is Parley calling about your order.',
      voicemail: {
        action: 'leave_message',
        message: 'Hi {{first_name}}, this is Parley about your order. Please call us back.',
      },
    })
    const call = await placeOutboundCall(agent.id)
    // The server's choice for detection: the agent's analysisModel, the catalogue's default STT
    // with the platform's key, in the agent's language.
    expect(call.chosen.llm).toBeNull()
    expect(call.chosen.amd?.llm).toMatchObject({ model: 'llama-3.3-70b-versatile', keySource: 'platform' })
    expect(call.chosen.amd?.stt).toMatchObject({
      provider: 'deepgram',
      api: 'deepgram',
      model: 'nova-3',
      baseUrl: 'https://api.deepgram.com/v1',
      apiKey: 'dg-platform-key',
      language: 'en',
    })

    classifyAs('machine-vm')
    realtime.queue('Hi Sam, this is Parley about your order. Please call us back.')
    call.answer()
    await call.hear(VOICEMAIL_GREETING)
    expect(await call.detection).toMatchObject({ verdict: 'voicemail', action: { kind: 'leave_message' } })

    // The framework's classifier on the analysis model, with the side STT's words.
    const request = classifierRequest()
    expect(request?.model).toBe('llama-3.3-70b-versatile')
    expect(request?.messages.at(-1)).toMatchObject({ role: 'user', content: VOICEMAIL_GREETING })
    const listened = deepgram.connections.at(-1)
    expect(listened?.authorization).toBe('Token dg-platform-key')
    expect(listened?.query.get('model')).toBe('nova-3')

    await vi.waitFor(() => expect(call.shutdowns).toContain('voicemail_left'), { timeout: 15_000 })
    expect(call.ends).toEqual([{ reason: 'voicemail_left', amdVerdict: 'voicemail' }])
    // The realtime model was asked once, for the message: no greeting, and its own reply to the
    // machine's greeting (held while detection listened) was cut off unsaid.
    expect(call.responsesAsked()).toHaveLength(1)
    expect(call.responsesAsked()[0]).toContain(
      'Hi Sam, this is Parley about your order. Please call us back.',
    )
    // (The callee's words, as the realtime model's own transcription heard them, may reach the
    // transcript only after the call ended: not asserted.)
    expect(await said(call)).toEqual(['Hi Sam, this is Parley about your order. Please call us back.'])
    expect((await parley.readCall(call.callId)).status).toBe('ended')
  })

  it('a voicemail with hang_up: the call ends voicemail_hung_up, the realtime model says nothing', async () => {
    const agent = await realtimeAgent({ greetingType: 'agentFirst', greetingMessage: 'Hi, this is Parley.' })
    const call = await placeOutboundCall(agent.id)
    // No analysisModel: the catalogue's default text model, as post-call analysis picks it.
    expect(call.chosen.amd?.llm.model).toBe('gpt-4o-mini')
    classifyAs('machine-vm')
    call.answer()
    await call.hear(VOICEMAIL_GREETING)
    expect(await call.detection).toMatchObject({ verdict: 'voicemail', action: { kind: 'end' } })
    await vi.waitFor(() => expect(call.shutdowns).toContain('voicemail_hung_up'), { timeout: 15_000 })
    expect(call.ends).toEqual([{ reason: 'voicemail_hung_up', amdVerdict: 'voicemail' }])
    expect(classifierRequest()?.model).toBe('gpt-4o-mini')
    expect(call.responsesAsked()).toEqual([])
    expect(await said(call)).toEqual([])
  })

  it('a person: the verdict is human, the realtime model greets and the conversation goes on', async () => {
    const agent = await realtimeAgent({
      greetingType: 'agentFirst',
      greetingMessage: 'Hi, this is Parley calling about your order.',
    })
    const call = await placeOutboundCall(agent.id)
    classifyAs('human')
    realtime.queue('Hi, this is Parley calling about your order.')
    call.answer()
    await call.hear(PERSON)
    // Nothing asked of the realtime model while detection listened.
    expect(call.responsesAsked()).toEqual([])
    expect(await call.detection).toMatchObject({ verdict: 'human', action: { kind: 'converse' } })
    await vi.waitFor(
      () =>
        expect(call.responsesAsked().some((asked) => asked.includes('Hi, this is Parley calling'))).toBe(
          true,
        ),
      { timeout: 15_000 },
    )
    await vi.waitFor(
      async () =>
        expect(await call.transcript()).toContainEqual([
          'assistant',
          'Hi, this is Parley calling about your order.',
        ]),
      { timeout: 15_000 },
    )

    realtime.queue('It is Parley, about the order you placed yesterday.')
    const result = await call.session.run({ userInput: 'Who did you say you were?' }).wait()
    result.expect.containsMessage({ role: 'assistant' })
    await vi.waitFor(
      async () =>
        expect(await call.transcript()).toContainEqual([
          'assistant',
          'It is Parley, about the order you placed yesterday.',
        ]),
      { timeout: 15_000 },
    )
    // The realtime model's own reply to "Hello?", held while detection listened, was dropped: the
    // greeting answers the person's first words, whose words stay in the conversation.
    expect(await said(call)).toEqual([
      'Hi, this is Parley calling about your order.',
      'It is Parley, about the order you placed yesterday.',
    ])
    // Their transcript is recorded as it comes, which on a busy machine may be after the replies.
    await vi.waitFor(async () => expect(await call.transcript()).toContainEqual(['user', PERSON]), {
      timeout: 15_000,
    })
    expect(call.shutdowns).toEqual([])
    expect(call.ends).toEqual([])
    // Detection's side STT listened only while it decided.
    await vi.waitFor(() => expect(deepgram.open()).toBe(0), { timeout: 10_000 })
  })
})
