import { type ChatHistory, ZCallSetupResponse } from '@parley/shared'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { chatCall, createChatSession, createTextAgent, sendChat } from '../../test/helpers/chat.ts'
import type { FakeLlm } from '../../test/helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import type { TestServer } from '../../test/helpers/test-server.ts'
import { startVoiceSession, startVoiceStack, type VoiceStack } from '../../test/helpers/voice.ts'

/**
 * One conversation across text and voice: a call that continues a chat session hears its turns
 * (through the worker's setup), what is said in it lands in the same history marked `voice`, and
 * the next typed message is answered with the spoken turns in context.
 */

let stack: VoiceStack
let WORKER_TOKEN: string
let llm: FakeLlm
let server: TestServer
let team: Awaited<ReturnType<typeof createTeam>>
let key: string
let textAgentId: string
let voiceAgentId: string

beforeAll(async () => {
  stack = await startVoiceStack()
  ;({ server, llm, workerToken: WORKER_TOKEN } = stack)
  team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
  textAgentId = await createTextAgent(server, key, 'Shop Assistant')
  voiceAgentId = (await makeAgent(server, team.owner, { agentArchitecture: 'pipeline', name: 'Shop Voice' }))
    .id
})
afterAll(() => stack?.close())
beforeEach(() => llm.reset())

const worker = (path: string, json?: unknown) =>
  server.request(path, {
    method: json === undefined ? 'GET' : 'POST',
    ...(json === undefined ? {} : { json }),
    token: WORKER_TOKEN,
  })

const historyOf = async (session: { conversation_id: string; session_token: string }) => {
  const response = await chatCall(server, session, 'history')
  expect(response.status).toBe(200)
  const body = (await response.json()) as ChatHistory
  return body.messages.map(({ role, content, channel }) => [channel, role, content])
}

/** The worker's side of a call: its setup, then the lines it posts as they are said. */
const speak = async (callId: string, lines: Array<{ role: 'user' | 'assistant'; content: string }>) => {
  const response = await worker(`/v1/calls/${callId}/transcript`, { lines })
  expect(response.status).toBe(200)
}

const setupOf = async (callId: string) => {
  const response = await worker(`/v1/calls/${callId}/setup`)
  if (response.status !== 200) throw new Error(`setup: ${response.status} ${await response.text()}`)
  return ZCallSetupResponse.parse(await response.json()).data
}

describe('a call that continues a chat conversation', () => {
  it('text, then voice, then text: one history, each message marked with its channel', async () => {
    const chat = await createChatSession(server, { key, agentId: textAgentId })
    expect(chat.voice_available).toBe(true)
    llm.queue({ text: ['Our blue mug is 12 dollars.'] })
    await sendChat(server, chat, 'How much is the blue mug?')

    const call = await startVoiceSession(server, { key, agentId: voiceAgentId, continues: chat })
    const setup = await setupOf(call.callId)
    expect(setup.history).toEqual([
      { role: 'user', content: 'How much is the blue mug?', channel: 'text' },
      { role: 'assistant', content: 'Our blue mug is 12 dollars.', channel: 'text' },
    ])
    await speak(call.callId, [
      { role: 'user', content: 'Can I get it in red?' },
      { role: 'assistant', content: 'Yes, red is in stock.' },
    ])
    expect(await historyOf(chat)).toEqual([
      ['text', 'user', 'How much is the blue mug?'],
      ['text', 'assistant', 'Our blue mug is 12 dollars.'],
      ['voice', 'user', 'Can I get it in red?'],
      ['voice', 'assistant', 'Yes, red is in stock.'],
    ])

    // After the call, the next typed message is answered with the spoken turns in context.
    llm.queue({ text: ['Added the red mug.'] })
    await sendChat(server, chat, 'Add it to my cart please')
    const contents = llm.requests.at(-1)?.messages.map((message) => message.content)
    expect(contents).toEqual(
      expect.arrayContaining(['Can I get it in red?', 'Yes, red is in stock.', 'Add it to my cart please']),
    )
    expect((await historyOf(chat)).slice(4)).toEqual([
      ['text', 'user', 'Add it to my cart please'],
      ['text', 'assistant', 'Added the red mug.'],
    ])
    const row = await server.ctx.db
      .selectFrom('calls')
      .select('conversation_id')
      .where('id', '=', call.callId)
      .executeTakeFirstOrThrow()
    expect(row.conversation_id).toBe(chat.conversation_id)
  })

  it('voice first: a session opened before anything was typed hears nothing, and its call is the history', async () => {
    const chat = await createChatSession(server, { key, agentId: textAgentId })
    const call = await startVoiceSession(server, { key, agentId: voiceAgentId, continues: chat })
    expect((await setupOf(call.callId)).history).toEqual([])
    await speak(call.callId, [{ role: 'user', content: 'My order number is A17.' }])
    llm.queue({ text: ['A17 has shipped.'] })
    await sendChat(server, chat, 'Has it shipped?')
    const contents = llm.requests.at(-1)?.messages.map((message) => message.content)
    expect(contents).toEqual(expect.arrayContaining(['My order number is A17.', 'Has it shipped?']))
    // A second call hears the first call's turns and the typed ones, not its own.
    const again = await startVoiceSession(server, { key, agentId: voiceAgentId, continues: chat })
    await speak(again.callId, [{ role: 'user', content: 'One more thing.' }])
    expect((await setupOf(again.callId)).history.map((turn) => [turn.channel, turn.content])).toEqual([
      ['voice', 'My order number is A17.'],
      ['text', 'Has it shipped?'],
      ['text', 'A17 has shipped.'],
    ])
  })

  it('a call of its own keeps no conversation and hears no history', async () => {
    const call = await startVoiceSession(server, { key, agentId: voiceAgentId })
    expect((await setupOf(call.callId)).history).toEqual([])
  })
})

describe('proof of the conversation', () => {
  const voice = (json: unknown) =>
    server.request('/v1/chat/voice-sessions', { method: 'POST', json, headers: { 'x-api-key': key } })

  it('403 conversation_mismatch when the token is another conversation’s', async () => {
    const mine = await createChatSession(server, { key, agentId: textAgentId })
    const other = await createChatSession(server, { key, agentId: textAgentId })
    const response = await voice({
      agent_id: voiceAgentId,
      conversation_id: other.conversation_id,
      session_token: mine.session_token,
    })
    expect(response.status).toBe(403)
    expect(await response.json()).toMatchObject({ code: 'conversation_mismatch' })
  })

  it('400 when conversation_id comes without session_token (or the other way round)', async () => {
    const chat = await createChatSession(server, { key, agentId: textAgentId })
    for (const body of [
      { agent_id: voiceAgentId, conversation_id: chat.conversation_id },
      { agent_id: voiceAgentId, session_token: chat.session_token },
    ]) {
      const response = await voice(body)
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({ code: 'validation_error' })
    }
  })

  it('401 for a forged token, 404 for an ended conversation or one of another organization; no call is made', async () => {
    const calls = async () =>
      Number(
        (
          await server.ctx.db
            .selectFrom('calls')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    const before = await calls()
    const chat = await createChatSession(server, { key, agentId: textAgentId })
    const forged = await voice({
      agent_id: voiceAgentId,
      conversation_id: chat.conversation_id,
      session_token: `${chat.session_token.slice(0, -4)}AAAA`,
    })
    expect(forged.status).toBe(401)

    const stranger = await createTeam(server)
    const strangerKey = await secretKeyFor(server, stranger.owner)
    const theirs = await createChatSession(server, {
      key: strangerKey,
      agentId: await createTextAgent(server, strangerKey),
    })
    const crossed = await voice({ agent_id: voiceAgentId, ...pick(theirs) })
    expect(crossed.status).toBe(404)

    expect((await chatCall(server, chat, 'end')).status).toBe(200)
    const ended = await voice({ agent_id: voiceAgentId, ...pick(chat) })
    expect(ended.status).toBe(404)
    expect(await ended.json()).toMatchObject({ code: 'session_not_found' })
    expect(await calls()).toBe(before)
  })
})

const pick = ({ conversation_id, session_token }: { conversation_id: string; session_token: string }) => ({
  conversation_id,
  session_token,
})
