import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatCall, createChatSession, createTextAgent, sendChat } from '../../test/helpers/chat.ts'
import type { FakeLlm } from '../../test/helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import type { TestServer } from '../../test/helpers/test-server.ts'
import { startVoiceSession, startVoiceStack, type VoiceStack } from '../../test/helpers/voice.ts'

let stack: VoiceStack
let WORKER_TOKEN: string
let llm: FakeLlm
let server: TestServer
let key: string
let strangerKey: string
let textAgentId: string
let voiceAgentId: string

beforeAll(async () => {
  stack = await startVoiceStack()
  ;({ server, llm, workerToken: WORKER_TOKEN } = stack)
  const team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
  strangerKey = await secretKeyFor(server, (await createTeam(server)).owner)
  textAgentId = await createTextAgent(server, key, 'Shop')
  voiceAgentId = (await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })).id
})
afterAll(() => stack?.close())

const api = (method: string, path: string, as = key) =>
  server.request(path, { method, headers: { 'x-api-key': as } })

/** A chat conversation continued by a call (both said something), the call ended by its agent. */
const conversationWithCall = async () => {
  const chat = await createChatSession(server, { key, agentId: textAgentId })
  llm.queue({ text: ['Typed answer.'] })
  await sendChat(server, chat, 'my address is 12 Baker Street')
  const call = await startVoiceSession(server, { key, agentId: voiceAgentId, continues: chat })
  const said = await server.request(`/v1/calls/${call.callId}/transcript`, {
    method: 'POST',
    token: WORKER_TOKEN,
    json: { lines: [{ role: 'user', content: 'my card ends in 4242' }] },
  })
  expect(said.status).toBe(200)
  return { chat, callId: call.callId }
}

const endCall = (callId: string) =>
  server.request(`/v1/calls/${callId}/end`, {
    method: 'POST',
    token: WORKER_TOKEN,
    json: { reason: 'agent_ended' },
  })

const count = async (table: 'chat_messages' | 'call_transcript_lines', column: string, value: string) =>
  Number(
    (
      await server.ctx.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where(column as never, '=', value as never)
        .executeTakeFirstOrThrow()
    ).n,
  )

describe('privacy deletion', () => {
  it('deletes a conversation with everything said in it, its calls’ transcripts too, and logs who asked', async () => {
    const { chat, callId } = await conversationWithCall()
    expect((await api('DELETE', `/v1/conversations/${chat.conversation_id}`, strangerKey)).status).toBe(404)
    const deleted = await api('DELETE', `/v1/conversations/${chat.conversation_id}`)
    expect(deleted.status).toBe(200)
    expect(await deleted.json()).toEqual({ success: true, data: { id: chat.conversation_id, deleted: true } })
    expect((await api('GET', `/v1/conversations/${chat.conversation_id}`)).status).toBe(404)
    expect(await count('chat_messages', 'conversation_id', chat.conversation_id)).toBe(0)
    expect(await count('call_transcript_lines', 'call_id', callId)).toBe(0)
    // The visitor's session is gone with it.
    expect((await chatCall(server, chat, 'history')).status).toBe(404)
    expect((await api('DELETE', `/v1/conversations/${chat.conversation_id}`)).status).toBe(404)

    const log = (await (await api('GET', '/v1/deletions')).json()) as {
      data: { kind: string; targetId: string; deletedByKeyId: string | null }[]
    }
    expect(log.data[0]).toMatchObject({ kind: 'conversation', targetId: chat.conversation_id })
    expect(log.data[0]?.deletedByKeyId).toBeTruthy()
    expect(JSON.stringify(log)).not.toContain('Baker')
    const theirs = (await (await api('GET', '/v1/deletions', strangerKey)).json()) as { data: unknown[] }
    expect(theirs.data).toEqual([])
  })

  it('refuses a reply streaming on a live instance (409), not one whose instance died mid-reply', async () => {
    const chat = await createChatSession(server, { key, agentId: textAgentId })
    const replyOn = (instanceId: string) =>
      server.ctx.db
        .updateTable('conversations')
        .set({ reply_started_at: new Date(), reply_instance_id: instanceId })
        .where('id', '=', chat.conversation_id)
        .execute()
    await replyOn(server.ctx.instanceId)
    expect((await api('DELETE', `/v1/conversations/${chat.conversation_id}`)).status).toBe(409)
    // Killed mid-reply: no heartbeat for a minute; its slot stays taken until the next message.
    await server.ctx.db
      .insertInto('server_instances')
      .values({ id: 'killed-mid-reply', last_seen_at: new Date(Date.now() - 60_000) })
      .execute()
    await replyOn('killed-mid-reply')
    expect((await api('DELETE', `/v1/conversations/${chat.conversation_id}`)).status).toBe(200)
  })

  it('refuses a live call (409), then deletes the ended call with its transcript and its spoken messages', async () => {
    const { chat, callId } = await conversationWithCall()
    expect((await api('DELETE', `/v1/calls/${callId}`)).status).toBe(409)
    expect((await endCall(callId)).status).toBe(200)
    expect((await api('DELETE', `/v1/calls/${callId}`, strangerKey)).status).toBe(404)
    expect((await api('DELETE', `/v1/calls/${callId}`)).status).toBe(200)
    expect((await api('GET', `/v1/calls/${callId}`)).status).toBe(404)
    expect(await count('call_transcript_lines', 'call_id', callId)).toBe(0)
    // The typed part of the conversation stays; what was said in the call is gone.
    const history = (await (await chatCall(server, chat, 'history')).json()) as {
      messages: { content: string }[]
    }
    expect(history.messages.map((message) => message.content)).toEqual([
      'my address is 12 Baker Street',
      'Typed answer.',
    ])
  })
})
