import type { AddressInfo } from 'node:net'
import { inference, initializeLogger, log, type voice } from '@livekit/agents'
import * as openai from '@livekit/agents-plugin-openai'
import type { CallSetup, ChatHistory, DispatchMetadata } from '@parley/shared'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { WebSocketServer } from 'ws'
import { chatCall, createChatSession, createTextAgent, sendChat } from '../../server/test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../server/test/helpers/fake-llm.ts'
import { type HttpTarget, respondJson, startHttpTarget } from '../../server/test/helpers/http-target.ts'
import { type Parley, startParley } from '../test/helpers/parley.ts'
import { readDispatch } from './dispatch.ts'
import { buildCallSession } from './session.ts'
import { createWorkerApi, type WorkerApi } from './worker-api.ts'
import '../test/helpers/plugins.ts'

/**
 * Calls in the framework's text mode (no room): the real OpenAI plugin against the suite's fake
 * OpenAI-compatible server, and a real Parley server that dispatches the calls (through its
 * voice-session API) and answers the worker's endpoints. One server and one model for the file.
 */

initializeLogger({ pretty: false, level: (process.env.AUDIO_LOG_LEVEL as 'fatal') ?? 'fatal' })

const LLM_KEY = 'sk-platform-key-for-the-fake-llm'
const VOICE_STYLE =
  'You are speaking on a voice call: answer in short spoken sentences, without lists, markdown or emoji.'

let parley: Parley
let llm: FakeLlm
let shop: HttpTarget
let api: WorkerApi
const vad = new inference.VAD()
const sessions: voice.AgentSession[] = []

beforeAll(async () => {
  llm = await startFakeLlm()
  shop = await startHttpTarget((request, response) => {
    if (request.url === '/orders') return respondJson(response, 200, { order: 'A17', status: 'shipped' })
    respondJson(response, 500, { message: 'database down' })
  })
  parley = await startParley({
    env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: LLM_KEY, OUTBOUND_ALLOW_HOSTS: shop.hostAndPort },
  })
  api = createWorkerApi({ apiUrl: parley.server.url, workerToken: parley.workerToken })
})

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()))
  llm.reset()
})

afterAll(async () => {
  await parley?.close()
  await llm?.close()
  await shop?.close()
})

/**
 * Starts a web call to the agent through the API and runs its job's steps without a room: the
 * dispatch metadata read as dispatched (`adjust` stands in for what another kind of call carries),
 * the setup read from the worker endpoint, the session built and started in text mode.
 */
const startTextCall = async (
  agentId: string,
  adjust = (metadata: DispatchMetadata) => metadata,
  continues?: { conversation_id: string; session_token: string },
  adjustSetup = (setup: CallSetup) => setup,
) => {
  const call = await parley.startCall(agentId, continues)
  const dispatch = readDispatch(call.metadata)
  if (!dispatch.ok) throw new Error(`the server's metadata was refused: ${dispatch.problem}`)
  const setup = adjustSetup(await api.setup(call.callId))
  const shutdowns: string[] = []
  const built = buildCallSession({
    metadata: adjust(dispatch.metadata),
    setup,
    services: {
      api,
      allowHosts: [shop.hostAndPort],
      vad,
      shutdown: (reason) => shutdowns.push(reason),
      logger: log(),
    },
  })
  sessions.push(built.session)
  await built.session.start({ agent: built.agent })
  const transcript = async () =>
    (await parley.readCall(call.callId)).transcript.map(({ role, content }) => [role, content])
  return { ...call, ...built, setup, shutdowns, transcript }
}

/** PUT /v1/agents/{id} (the studio vocabulary, which names custom functions) with function calling on. */
const enableFunctions = async (agentId: string, fields: Record<string, unknown>) => {
  const response = await parley.server.request(`/v1/agents/${agentId}`, {
    method: 'PUT',
    headers: { 'x-api-key': parley.key },
    json: { functionCallingEnabled: true, ...fields },
  })
  expect(response.status).toBe(200)
}

const createFunction = async (agentId: string, path: string) => {
  const response = await parley.server.request(`/api/custom-functions/${agentId}`, {
    method: 'POST',
    token: parley.key,
    json: {
      name: 'lookup_order',
      label: 'Look up an order',
      description: 'Finds an order by its number',
      endpoint: `${shop.origin}${path}`,
      headers: { Authorization: 'Bearer customer-secret-9876', 'X-Shop': 'north' },
      parameters: {
        type: 'object',
        properties: { orderNumber: { type: 'string' } },
        required: ['orderNumber'],
      },
    },
  })
  expect(response.status).toBe(201)
  const fn = (await response.json()) as { id: string }
  await enableFunctions(agentId, { enabledCustomFunctions: [fn.id] })
}

const systemPromptOf = (request: FakeLlm['requests'][number] | undefined) => request?.messages[0]?.content

describe('a call in text mode', { timeout: 60_000 }, () => {
  it('gives the model the agent’s prompt, placeholders filled from the contact, its language and temperature, with the setup’s key', async () => {
    const agent = await parley.makeVoiceAgent({
      systemPrompt: 'Remind {{first_name}} that the {{ plan }} plan renews on {{renewal}}.',
      language: 'ur',
      temperature: 0.2,
      greetingType: 'userFirst',
    })
    // An outbound call's metadata carries its contact; the server fills the prompt's placeholders
    // before it dispatches, and the worker fills what is left (here: all of them).
    const call = await startTextCall(agent.id, (metadata) => ({
      ...metadata,
      contact: { first_name: 'Ayesha', plan: 'Gold', visits: 3 },
    }))
    llm.queue({ text: ['Salaam'] })
    const result = await call.session.run({ userInput: 'Hello?' }).wait()
    result.expect.nextEvent().isMessage({ role: 'assistant' })

    const request = llm.requests.at(-1)
    expect(systemPromptOf(request)).toBe(
      `Remind Ayesha that the Gold plan renews on .\n\n${VOICE_STYLE}\n\nSpeak Urdu.`,
    )
    expect(request?.temperature).toBe(0.2)
    expect(llm.requestHeaders.at(-1)?.authorization).toBe(`Bearer ${LLM_KEY}`)
  })

  it('turns to the agent’s fallback model when its primary fails before the first chunk', async () => {
    const agent = await parley.makeVoiceAgent({
      model: 'gpt-4o-mini',
      fallbackModel: 'gpt-4o',
      greetingType: 'userFirst',
    })
    const call = await startTextCall(agent.id)
    expect([call.setup.llm?.model, call.setup.fallbackLlm?.model]).toEqual(['gpt-4o-mini', 'gpt-4o'])
    // The primary's provider is down for the whole test: the framework probes it again in the
    // background while the fallback answers.
    llm.setFallback((request) => (request.model === 'gpt-4o' ? { text: ['Still here.'] } : { status: 503 }))
    try {
      const result = await call.session.run({ userInput: 'Hello?' }).wait()
      result.expect.nextEvent().isMessage({ role: 'assistant' })
    } finally {
      llm.setFallback({ text: ['Hello', ' there', '!'], usage: { input: 10, output: 5 } })
    }
    expect(llm.requests[0]?.model).toBe('gpt-4o-mini')
    expect(llm.requests.map((request) => request.model)).toContain('gpt-4o')
    await vi.waitFor(async () =>
      expect(await call.transcript()).toEqual([
        ['user', 'Hello?'],
        ['assistant', 'Still here.'],
      ]),
    )
  })

  it('continuing a chat conversation, hears its typed turns and picks up the thread instead of greeting', async () => {
    const textAgentId = await createTextAgent(parley.server, parley.key, 'Shop Assistant')
    const chat = await createChatSession(parley.server, { key: parley.key, agentId: textAgentId })
    llm.queue({ text: ['The blue mug is 12 dollars.'] })
    await sendChat(parley.server, chat, 'How much is the blue mug?')
    const agent = await parley.makeVoiceAgent({ greetingType: 'agentFirst', greetingMessage: 'Welcome!' })
    llm.reset()
    llm.queue({ text: ['About that blue mug: want it?'] })
    const call = await startTextCall(agent.id, undefined, chat)
    await vi.waitFor(() => expect(llm.requests).toHaveLength(1))
    const contents = llm.requests[0]?.messages.map((message) => message.content)
    expect(contents).toEqual(
      expect.arrayContaining(['How much is the blue mug?', 'The blue mug is 12 dollars.']),
    )
    expect(JSON.stringify(contents)).toContain('switched to a voice call')
    await vi.waitFor(async () =>
      expect(await call.transcript()).toEqual([['assistant', 'About that blue mug: want it?']]),
    )
    // Its words land in the chat's history too, as spoken ones.
    const history = (await (await chatCall(parley.server, chat, 'history')).json()) as ChatHistory
    expect(history.messages.map((message) => [message.channel, message.content])).toEqual([
      ['text', 'How much is the blue mug?'],
      ['text', 'The blue mug is 12 dollars.'],
      ['voice', 'About that blue mug: want it?'],
    ])
  })

  it('greets first with the agent’s greeting, said as written; without one the model greets', async () => {
    const greeter = await parley.makeVoiceAgent({
      greetingType: 'agentFirst',
      greetingMessage: 'Thanks for calling the front desk.',
    })
    const said = await startTextCall(greeter.id)
    await vi.waitFor(
      async () =>
        expect(await said.transcript()).toEqual([['assistant', 'Thanks for calling the front desk.']]),
      { timeout: 15_000 },
    )
    expect(llm.requests).toEqual([])

    const improviser = await parley.makeVoiceAgent({ greetingType: 'agentFirst', greetingMessage: null })
    llm.queue({ text: ['Hello, how can I help?'] })
    const made = await startTextCall(improviser.id)
    await vi.waitFor(
      async () => expect(await made.transcript()).toEqual([['assistant', 'Hello, how can I help?']]),
      { timeout: 15_000 },
    )
    expect(JSON.stringify(llm.requests[0]?.messages)).toContain('Open the call with one short greeting')
  })

  it('posts every finished turn to the call’s transcript, in order', async () => {
    const agent = await parley.makeVoiceAgent({ greetingType: 'userFirst' })
    const call = await startTextCall(agent.id)
    llm.queue({ text: ['One.'] }, { text: ['Two', '.'] })
    await call.session.run({ userInput: 'first' }).wait()
    await call.session.run({ userInput: 'second' }).wait()
    await vi.waitFor(async () =>
      expect(await call.transcript()).toEqual([
        ['user', 'first'],
        ['assistant', 'One.'],
        ['user', 'second'],
        ['assistant', 'Two.'],
      ]),
    )
    const positions = (await parley.readCall(call.callId)).transcript.map((line) => line.position)
    expect(positions).toEqual([...positions].sort((a, b) => a - b))
  })

  it('calls a custom function over HTTP with the headers from the worker endpoint; the answer goes to the model', async () => {
    const agent = await parley.makeVoiceAgent({ greetingType: 'userFirst' })
    await createFunction(agent.id, '/orders')
    const call = await startTextCall(agent.id)
    expect(call.setup.functions[0]?.headers).toEqual({
      Authorization: 'Bearer customer-secret-9876',
      'X-Shop': 'north',
    })

    llm.queue(
      { toolCalls: [{ name: 'lookup_order', args: ['{"orderNumber":', '"A17"}'] }] },
      { text: ['Your order has shipped.'] },
    )
    const result = await call.session.run({ userInput: 'Where is order A17?' }).wait()
    result.expect.nextEvent().isFunctionCall({ name: 'lookup_order', args: { orderNumber: 'A17' } })
    result.expect
      .nextEvent()
      .isFunctionCallOutput({ output: JSON.stringify({ order: 'A17', status: 'shipped' }) })
    result.expect.nextEvent().isMessage({ role: 'assistant' })

    const received = shop.received.at(-1)
    expect(received).toMatchObject({ method: 'POST', url: '/orders', body: '{"orderNumber":"A17"}' })
    expect(received?.headers).toMatchObject({
      authorization: 'Bearer customer-secret-9876',
      'x-shop': 'north',
    })
    expect(llm.requests.at(-1)?.messages.at(-1)).toMatchObject({ role: 'tool' })
  })

  it('hands a failing function’s error to the model, and the call goes on', async () => {
    const agent = await parley.makeVoiceAgent({ greetingType: 'userFirst' })
    await createFunction(agent.id, '/broken')
    const call = await startTextCall(agent.id)
    llm.queue(
      { toolCalls: [{ name: 'lookup_order', args: ['{"orderNumber":"B2"}'] }] },
      { text: ['Sorry, I cannot look that up right now.'] },
    )
    const result = await call.session.run({ userInput: 'Where is B2?' }).wait()
    result.expect.nextEvent().isFunctionCall({ name: 'lookup_order' })
    const output = result.expect.nextEvent().isFunctionCallOutput({ isError: true })
    expect(output.event().item.output).toBe(
      'The function endpoint answered HTTP 500: {"message":"database down"}',
    )
    result.expect.nextEvent().isMessage({ role: 'assistant' })
    expect(call.shutdowns).toEqual([])
  })

  it('end_call says the last message, then the server ends the call and the job shuts down', async () => {
    const agent = await parley.makeVoiceAgent({
      greetingType: 'userFirst',
      lastMessage: 'Goodbye from the front desk.',
    })
    await enableFunctions(agent.id, { enabledFunctions: ['end_call'] })
    const call = await startTextCall(agent.id)
    llm.queue({ toolCalls: [{ name: 'end_call', args: ['{}'] }] })
    const result = await call.session.run({ userInput: 'That is all, bye.' }).wait()
    result.expect.containsFunctionCall({ name: 'end_call' })

    await parley.callEnds(call.callId, 'agent_ended')
    expect(await call.transcript()).toEqual([
      ['user', 'That is all, bye.'],
      ['assistant', 'Goodbye from the front desk.'],
    ])
    expect(call.shutdowns).toContain('agent_ended')
    // The tool answers nothing, so the model is not asked for another reply.
    expect(llm.requests).toHaveLength(1)
  })

  it('when the caller stays silent for the inactivity time-out, says the last message and ends the call', async () => {
    const agent = await parley.makeVoiceAgent({
      greetingType: 'userFirst',
      lastMessage: 'Are you there? Goodbye.',
    })
    // Agents take 10 to 60 s; the worker honours whatever its metadata says, and 1 s keeps this short.
    const call = await startTextCall(agent.id, (metadata) => ({
      ...metadata,
      agent: { ...metadata.agent, inactivityTimeout: 1 },
    }))
    await parley.callEnds(call.callId, 'inactivity')
    expect(await call.transcript()).toEqual([['assistant', 'Are you there? Goodbye.']])
    expect(call.shutdowns).toContain('inactivity')
  })

  it('transfers to another voice agent through the server, which then answers with its own prompt', async () => {
    const billing = await parley.makeVoiceAgent({
      name: 'Billing Desk',
      description: 'Invoices and refunds',
      systemPrompt: 'You handle billing.',
    })
    const frontDesk = await parley.makeVoiceAgent({
      name: 'Front Desk',
      greetingType: 'userFirst',
      handoffAgentIds: [billing.id],
    })
    const call = await startTextCall(frontDesk.id)
    llm.queue(
      { toolCalls: [{ name: 'transfer_to_billing_desk', args: ['{}'] }] },
      { text: ['Billing here.'] },
    )
    const result = await call.session.run({ userInput: 'I need a refund.' }).wait()
    result.expect.containsFunctionCall({ name: 'transfer_to_billing_desk' })
    result.expect.containsAgentHandoff()
    result.expect.containsMessage({ role: 'assistant' })

    const answering = llm.requests.at(-1)
    expect(systemPromptOf(answering)).toMatch(/^You handle billing\./)
    expect(JSON.stringify(answering?.messages)).toContain('I need a refund.')
    await vi.waitFor(async () =>
      expect(await call.transcript()).toEqual([
        ['user', 'I need a refund.'],
        ['assistant', 'Billing here.'],
      ]),
    )
  })

  it('with knowledge sources, each reply gets the passages for the person’s words, and search_knowledge finds more', async () => {
    const created = await parley.server.request('/v1/knowledge/sources', {
      method: 'POST',
      headers: { 'x-api-key': parley.key },
      json: {
        kind: 'text',
        title: 'Front desk',
        text: '# Opening hours\n\nThe shop opens at nine on Mondays.\n\n# Parking\n\nGuests park free behind the hotel.',
      },
    })
    expect(created.status).toBe(202)
    const sourceId = ((await created.json()) as { data: { id: string } }).data.id
    await vi.waitFor(
      async () => {
        const response = await parley.server.request(`/v1/knowledge/sources/${sourceId}`, {
          headers: { 'x-api-key': parley.key },
        })
        expect(((await response.json()) as { data: { status: string } }).data.status).toBe('ready')
      },
      { timeout: 45_000, interval: 50 },
    )
    const agent = await parley.makeVoiceAgent({ greetingType: 'userFirst', knowledgeSourceIds: [sourceId] })
    const call = await startTextCall(agent.id)
    expect(call.metadata).not.toContain(sourceId)

    llm.queue(
      { text: ['We open at nine on Mondays.'] },
      { toolCalls: [{ name: 'search_knowledge', args: ['{"query":"where to park"}'] }] },
      { text: ['Parking is free behind the hotel.'] },
    )
    const first = await call.session.run({ userInput: 'When do you open on Monday?' }).wait()
    first.expect.nextEvent().isMessage({ role: 'assistant' })
    // The reply's model call carries the passage with the chat's answer-from-these instruction.
    const given = JSON.stringify(llm.requests.at(-1)?.messages)
    expect(given).toContain('Answer from the passages below')
    expect(given).toContain('The shop opens at nine on Mondays.')
    expect(llm.requests.at(-1)?.tools?.map((tool) => tool.function.name)).toContain('search_knowledge')

    const second = await call.session.run({ userInput: 'And the car?' }).wait()
    second.expect.nextEvent().isFunctionCall({ name: 'search_knowledge', args: { query: 'where to park' } })
    const output = second.expect.nextEvent().isFunctionCallOutput().event().item.output
    expect(JSON.parse(output)).toMatchObject({
      passages: [{ title: 'Front desk › Parking', url: null, text: 'Guests park free behind the hotel.' }],
    })
    second.expect.nextEvent().isMessage({ role: 'assistant' })
    // Passages are given per reply, never kept in the conversation the next model call sees.
    const contents = JSON.stringify(llm.requests.at(-1)?.messages)
    expect(contents.match(/Answer from the passages below/g)?.length ?? 0).toBeLessThanOrEqual(1)

    // An agent without sources gets neither the tool nor passages.
    const plain = await parley.makeVoiceAgent({ greetingType: 'userFirst' })
    const plainCall = await startTextCall(plain.id)
    llm.queue({ text: ['Nine.'] })
    await plainCall.session.run({ userInput: 'When do you open on Monday?' }).wait()
    expect(JSON.stringify(llm.requests.at(-1)?.messages)).not.toContain('Answer from the passages')
    expect(llm.requests.at(-1)?.tools ?? []).toEqual([])
  })

  it('builds a realtime agent’s model from the setup the server resolved, without connecting', async () => {
    const agent = await parley.makeVoiceAgent({
      agentArchitecture: 'realtime',
      realtimeProvider: 'openai',
      voiceId: 'alloy',
      model: null,
      stt: null,
      tts: null,
    })
    const call = await parley.startCall(agent.id)
    const dispatch = readDispatch(call.metadata)
    if (!dispatch.ok) throw new Error(dispatch.problem)
    const setup = await api.setup(call.callId)
    const built = buildCallSession({
      metadata: dispatch.metadata,
      setup,
      services: { api, allowHosts: [], vad, shutdown: () => {}, logger: log() },
    })
    expect(built.agent.llm).toBeInstanceOf(openai.realtime.RealtimeModel)
    const model = built.agent.llm as openai.realtime.RealtimeModel
    expect(model.model).toBe(setup.realtime?.model)
    expect(model._options).toMatchObject({ voice: setup.realtime?.voice, apiKey: setup.realtime?.apiKey })
  })

  it('continues a realtime call on its pipeline fallback when the realtime model fails', async () => {
    const fields = {
      agentArchitecture: 'realtime',
      realtimeProvider: 'openai',
      voiceId: 'alloy',
      greetingType: 'userFirst',
      model: null,
      stt: null,
      tts: null,
    }
    // The fallback is whole or absent.
    const partial = await parley.server.request('/v1/agents', {
      method: 'POST',
      headers: { 'x-api-key': parley.key },
      json: { name: 'Half a fallback', systemPrompt: 'You help.', ...fields, fallbackModel: 'gpt-4o-mini' },
    })
    expect(partial.status).toBe(400)
    expect(JSON.stringify(await partial.json())).toContain(
      'fallbackModel, fallbackStt and fallbackTts together',
    )

    const agent = await parley.makeVoiceAgent({
      ...fields,
      fallbackModel: 'gpt-4o-mini',
      // OpenAI's, which this server reaches on the fake LLM's loopback address (LLM_BASE_URL).
      fallbackStt: 'whisper-1',
      fallbackTts: 'openai-tts-1',
    })
    // OpenAI's Realtime endpoint failing for good: it accepts the WebSocket and answers with an
    // `error` server event whose code the plugin takes as fatal (the organization's quota is spent).
    const realtime = new WebSocketServer({ host: '127.0.0.1', port: 0 })
    await new Promise((resolve) => realtime.once('listening', resolve))
    let connections = 0
    realtime.on('connection', (socket) => {
      connections++
      // It answers the plugin's first event (its session.update).
      socket.once('message', () =>
        socket.send(
          JSON.stringify({
            type: 'error',
            event_id: 'event_fake_1',
            error: {
              type: 'insufficient_quota',
              code: 'insufficient_quota',
              message: 'You exceeded your current quota.',
              param: null,
              event_id: null,
            },
          }),
        ),
      )
    })
    const { port } = realtime.address() as AddressInfo
    const call = await startTextCall(agent.id, undefined, undefined, (setup) => ({
      ...setup,
      realtime: setup.realtime && { ...setup.realtime, baseUrl: `http://127.0.0.1:${port}/v1` },
    }))
    expect(call.setup.fallbackLlm).toMatchObject({ model: 'gpt-4o-mini' })
    expect(call.setup.fallbackStt).toMatchObject({ model: 'whisper-1', baseUrl: llm.baseUrl })
    expect(call.setup.fallbackTts).toMatchObject({ model: 'tts-1', baseUrl: llm.baseUrl })
    expect(call.agent.llm).toBeInstanceOf(openai.realtime.RealtimeModel)

    // The realtime model reports it failed for good; the call goes on with a pipeline agent.
    await vi.waitFor(() => expect(call.session.currentAgent).not.toBe(call.agent), { timeout: 30_000 })
    const fallback = call.session.currentAgent
    expect(fallback.llm).toBeInstanceOf(openai.LLM)
    expect((fallback.llm as openai.LLM).model).toBe('gpt-4o-mini')
    expect([fallback.stt?.label, fallback.tts?.label]).toEqual(['openai.STT', 'openai.TTS'])
    expect(call.shutdowns).toEqual([])

    llm.queue({ text: ['Still here, how can I help?'] })
    await call.session.run({ userInput: 'Hello?' }).wait()
    await vi.waitFor(
      async () =>
        expect(await call.transcript()).toEqual([
          ['user', 'Hello?'],
          ['assistant', 'Still here, how can I help?'],
        ]),
      { timeout: 20_000 },
    )
    expect((await parley.readCall(call.callId)).status).toBe('active')
    expect(connections).toBe(1)
    realtime.close()
  }, 120_000)
})
