import { inference, initializeLogger } from '@livekit/agents'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createChatSession, createTextAgent, sendChat } from '../../../server/test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../../server/test/helpers/fake-llm.ts'
import { type HttpTarget, respondJson, startHttpTarget } from '../../../server/test/helpers/http-target.ts'
import { createWorkerApi } from '../../src/worker-api.ts'
import { type Parley, startParley } from '../helpers/parley.ts'
import { type FakeOpenAiAudio, startFakeOpenAiAudio } from './fake-openai-audio.ts'
import { AUDIO_AGENT, audioCalls } from './harness.ts'
import { speechOf } from './speech.ts'

/**
 * Calls with sound, through the framework's real pipeline: spoken fixtures (espeak-ng) played at
 * real-time pace into the framework's local VAD, the OpenAI STT and TTS plugins against a fake of
 * OpenAI's audio endpoints, the suite's fake LLM, and a real Parley server answering the worker.
 */

initializeLogger({ pretty: false, level: 'fatal' })

let parley: Parley
let llm: FakeLlm
let audio: FakeOpenAiAudio
let calls: ReturnType<typeof audioCalls>
let shop: HttpTarget
const vad = new inference.VAD()

beforeAll(async () => {
  ;[llm, audio, shop] = await Promise.all([
    startFakeLlm(),
    startFakeOpenAiAudio(),
    startHttpTarget((_request, response) => respondJson(response, 200, { order: 'A17', status: 'shipped' })),
  ])
  parley = await startParley({
    env: {
      OUTBOUND_ALLOW_HOSTS: shop.hostAndPort,
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: 'sk-fake-llm',
      OPENAI_BASE_URL: audio.baseUrl,
      OPENAI_API_KEY: 'sk-platform-openai',
    },
  })
  calls = audioCalls({
    parley,
    api: createWorkerApi({ apiUrl: parley.server.url, workerToken: parley.workerToken }),
    vad,
    allowHosts: [shop.hostAndPort],
  })
})

afterEach(async () => {
  await calls.closeAll()
  llm.reset()
  audio.reset()
})

afterAll(async () => {
  await parley?.close()
  await Promise.all([llm?.close(), audio?.close(), shop?.close()])
})

describe('a call with sound', { timeout: 60_000 }, () => {
  it('hears a spoken question and speaks the answer; both turns reach the transcript', async () => {
    const question = await speechOf('What time do you open tomorrow?')
    const agent = await parley.makeVoiceAgent({ ...AUDIO_AGENT, greetingType: 'userFirst' })
    const call = await calls.start(agent.id)
    audio.transcribe('What time do you open tomorrow?')
    llm.queue({ text: ['We open', ' at nine.'] })
    const answer = call.output.nextSegment()
    const played = await call.input.play(question)
    const segment = await answer

    // The STT heard the question once, as the VAD cut it: the speech and a little padding.
    expect(audio.transcriptions).toHaveLength(1)
    const [heard] = audio.transcriptions
    expect(heard?.audioMs).toBeGreaterThanOrEqual(played.durationMs - 50)
    expect(heard?.audioMs).toBeLessThanOrEqual(played.durationMs + 1_000)
    expect(heard).toMatchObject({
      model: 'whisper-1',
      language: 'en',
      authorization: 'Bearer sk-platform-openai',
    })
    // The model got the words; the TTS said its answer, and the caller heard that audio to the end.
    expect(llm.requests[0]?.messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'What time do you open tomorrow?',
    })
    expect(audio.syntheses.map(({ input, voice }) => [input, voice])).toEqual([['We open at nine.', 'alloy']])
    await vi.waitFor(() => expect(segment.interrupted).toBe(false), { timeout: 5_000 })
    // The plugin cuts its audio into 100 ms frames and leaves out a last partial one.
    expect(segment.capturedMs).toBeGreaterThan((audio.syntheses[0]?.audioMs ?? 0) - 100)
    expect(segment.firstFrameAt).toBeGreaterThan(played.endedAt)
    await vi.waitFor(
      async () =>
        expect(await call.transcript()).toEqual([
          ['user', 'What time do you open tomorrow?'],
          ['assistant', 'We open at nine.'],
        ]),
      { timeout: 15_000 },
    )
  })

  it('stops talking when the caller speaks over it, and marks the cut-off turn interrupted', async () => {
    const [question, interruption] = await Promise.all([
      speechOf('Tell me about your plans.'),
      speechOf('Sorry, just the cheapest one please.'),
    ])
    // The framework ignores the caller for the first 3 s the agent speaks in a call (its echo
    // canceller's warm-up): a greeting uses them up, as on a real call.
    const agent = await parley.makeVoiceAgent({
      ...AUDIO_AGENT,
      greetingType: 'agentFirst',
      greetingMessage: 'Thanks for calling Parley, this is the sales desk. How can I help?',
    })
    const call = await calls.start(agent.id)
    const greeting = await call.output.nextSegment()
    await vi.waitFor(() => expect(greeting.finishedAt).toBeDefined(), { timeout: 10_000 })
    audio.transcribe('Tell me about your plans.', 'Sorry, just the cheapest one please.')
    const long =
      'We have three plans. The basic plan is for small teams, the pro plan adds reports and the enterprise plan adds support and single sign on.'
    llm.queue({ text: [long] }, { text: ['The basic plan, then.'] })
    const answering = call.output.nextSegment()
    await call.input.play(question)
    const cut = await answering
    // The caller barges in as soon as the agent starts talking.
    const answered = call.output.nextSegment()
    await call.input.play(interruption)
    await answered

    expect(cut.interrupted).toBe(true)
    expect(cut.playedMs).toBeLessThan(cut.capturedMs)
    const said = () =>
      call.items.flatMap((item) =>
        item.type === 'message' && item.role === 'assistant' ? [item.interrupted] : [],
      )
    await vi.waitFor(() => expect(said()).toEqual([false, true, false]), { timeout: 5_000 })
    expect(audio.transcriptions.map(({ text }) => text)).toEqual([
      'Tell me about your plans.',
      'Sorry, just the cheapest one please.',
    ])
    // The worker sent the lines to the server's worker API: the cut-off turn is stored as such.
    const storedTurns = async () =>
      (await parley.readCall(call.callId)).transcript.map(({ role, interrupted }) => [role, interrupted])
    await vi.waitFor(
      async () =>
        expect(await storedTurns()).toEqual([
          ['assistant', false],
          ['user', false],
          ['assistant', true],
          ['user', false],
          ['assistant', false],
        ]),
      { timeout: 20_000 },
    )
    const stored = (await parley.readCall(call.callId)).transcript
    expect(stored[2]?.content.length).toBeGreaterThan(0)
    expect(long.startsWith(stored[2]?.content ?? '-')).toBe(true)
  })

  it('says the last message and ends the call when the caller stays silent', async () => {
    const agent = await parley.makeVoiceAgent({
      ...AUDIO_AGENT,
      greetingType: 'userFirst',
      lastMessage: 'Are you there? Goodbye.',
    })
    // Agents take 10 to 60 s; the worker honours its metadata, and 1 s keeps this short.
    const call = await calls.start(agent.id, (metadata) => ({
      ...metadata,
      agent: { ...metadata.agent, inactivityTimeout: 1 },
    }))
    const farewell = await call.output.nextSegment()
    await parley.callEnds(call.callId, 'inactivity')
    expect(audio.syntheses.map(({ input }) => input)).toEqual(['Are you there? Goodbye.'])
    expect(farewell.interrupted).toBe(false)
    expect(farewell.playedMs).toBeGreaterThan(0)
    await vi.waitFor(() => expect(call.shutdowns).toContain('inactivity'), { timeout: 15_000 })
    expect(await call.transcript()).toEqual([['assistant', 'Are you there? Goodbye.']])
  })

  it('greets first, in its own words, before the caller says anything', async () => {
    const agent = await parley.makeVoiceAgent({
      ...AUDIO_AGENT,
      greetingType: 'agentFirst',
      greetingMessage: 'Thanks for calling the front desk.',
    })
    const call = await calls.start(agent.id)
    const greeting = await call.output.nextSegment()
    expect(audio.syntheses.map(({ input }) => input)).toEqual(['Thanks for calling the front desk.'])
    expect(audio.transcriptions).toEqual([])
    expect(llm.requests).toEqual([])
    await vi.waitFor(() => expect(greeting.interrupted).toBe(false), { timeout: 5_000 })
    await vi.waitFor(
      async () =>
        expect(await call.transcript()).toEqual([['assistant', 'Thanks for calling the front desk.']]),
      { timeout: 15_000 },
    )
  })

  it('calls a tool during a spoken turn; the call and the conversation it continues keep it', async () => {
    const textAgentId = await createTextAgent(parley.server, parley.key, 'Shop Assistant')
    const chat = await createChatSession(parley.server, { key: parley.key, agentId: textAgentId })
    llm.queue({ text: ['Hello! How can I help?'] })
    await sendChat(parley.server, chat, 'Hi')
    const agent = await parley.makeVoiceAgent({ ...AUDIO_AGENT, greetingType: 'userFirst' })
    const fn = await parley.server.request(`/api/custom-functions/${agent.id}`, {
      method: 'POST',
      token: parley.key,
      json: {
        name: 'lookup_order',
        label: 'Look up an order',
        description: 'Finds an order by its number',
        endpoint: `${shop.origin}/orders`,
        parameters: { type: 'object', properties: { orderNumber: { type: 'string' } } },
      },
    })
    const { id: functionId } = (await fn.json()) as { id: string }
    const enabled = await parley.server.request(`/v1/agents/${agent.id}`, {
      method: 'PUT',
      headers: { 'x-api-key': parley.key },
      json: { functionCallingEnabled: true, enabledCustomFunctions: [functionId] },
    })
    expect(enabled.status).toBe(200)
    const question = await speechOf('Where is order A17?')
    llm.reset()
    const call = await calls.start(agent.id, undefined, chat)
    audio.transcribe('Where is order A17?')
    llm.queue(
      { toolCalls: [{ name: 'lookup_order', args: ['{"orderNumber":"A17"}'] }] },
      { text: ['Your order has shipped.'] },
    )
    const answer = call.output.nextSegment()
    await call.input.play(question)
    await answer
    expect(audio.syntheses.map(({ input }) => input)).toEqual(['Your order has shipped.'])
    expect(shop.received.at(-1)).toMatchObject({
      method: 'POST',
      url: '/orders',
      body: '{"orderNumber":"A17"}',
    })

    const stored = [
      {
        kind: 'function',
        name: 'lookup_order',
        arguments: { orderNumber: 'A17' },
        status: 'completed',
        targetAgentId: null,
      },
    ]
    await vi.waitFor(
      async () => expect((await parley.readCall(call.callId)).toolCalls).toMatchObject(stored),
      {
        timeout: 15_000,
      },
    )
    const conversation = await parley.server.request(`/v1/conversations/${chat.conversation_id}`, {
      headers: { 'x-api-key': parley.key },
    })
    expect(((await conversation.json()) as { data: { toolCalls: unknown[] } }).data.toolCalls).toMatchObject(
      stored,
    )
  })
})
