import type { ChatSession } from '@parley/shared'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  type ChatEvent,
  chatCall,
  createChatSession,
  readChatStream,
  textOf,
} from '../../test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { canRunTwoInstances, startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

let llm: FakeLlm
/** Resume grace at its 10 s default. */
let server: TestServer
/** Another instance on the same PostgreSQL and Redis; the same instance in the embedded run. */
let other: TestServer
/** Resume grace of 200 ms: a client that does not come back is given up quickly. */
let impatient: TestServer
const keys = new Map<TestServer, { key: string; agentId: string }>()

const WORDS = ['One ', 'two ', 'three ', 'four ', 'five ', 'six ', 'seven ', 'eight ', 'nine ', 'ten.']
const FULL_REPLY = WORDS.join('')

const setUp = async (target: TestServer) => {
  const team = await createTeam(target)
  keys.set(target, {
    key: await secretKeyFor(target, team.owner),
    agentId: (await makeAgent(target, team.owner)).id,
  })
}

beforeAll(async () => {
  llm = await startFakeLlm()
  const env = { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test-llm-key' }
  server = await startTestServer({ env })
  // The second instance must accept the first one's session tokens and sealed secrets.
  const shared = {
    ...env,
    JWT_SECRET: server.env.JWT_SECRET ?? '',
    ENCRYPTION_KEY: server.env.ENCRYPTION_KEY ?? '',
  }
  other = canRunTwoInstances ? await startTestServer({ shareDatabaseWith: server, env: shared }) : server
  impatient = await startTestServer({ env: { ...env, CHAT_RESUME_GRACE_MS: '200' } })
  await setUp(server)
  await setUp(impatient)
})
afterAll(async () => {
  if (other !== server) await other?.destroy()
  await server?.destroy()
  await impatient?.destroy()
  await llm?.close()
})
beforeEach(() => llm.reset())

const startSession = (target: TestServer) => {
  const { key, agentId } = keys.get(target) as { key: string; agentId: string }
  return createChatSession(target, { key, agentId })
}

type Send = { key: string; message?: string; lastEventId?: number; signal?: AbortSignal }

const send = (
  target: TestServer,
  session: ChatSession,
  { key, message = 'Count to ten', lastEventId, signal }: Send,
) =>
  target.request(`/v1/chat/sessions/${session.conversation_id}/messages`, {
    method: 'POST',
    token: session.session_token,
    json: { message },
    headers: {
      'idempotency-key': key,
      ...(lastEventId !== undefined ? { 'last-event-id': String(lastEventId) } : {}),
    },
    ...(signal ? { signal } : {}),
  })

/** Reads a stream until `dropAfterChunks` chunks arrived, then aborts the request as a lost network would. */
const readThenDrop = async (
  target: TestServer,
  session: ChatSession,
  key: string,
  dropAfterChunks: number,
) => {
  const controller = new AbortController()
  const received: ChatEvent[] = []
  const response = await send(target, session, { key, signal: controller.signal })
  expect(response.status).toBe(200)
  await readChatStream(response, (event) => {
    received.push(event)
    if (received.filter((e) => e.event === 'chunk').length === dropAfterChunks) controller.abort()
  }).catch(() => undefined)
  return received
}

const assistantRows = (target: TestServer, conversationId: string) =>
  target.ctx.db
    .selectFrom('chat_messages')
    .select(['status', 'content'])
    .where('conversation_id', '=', conversationId)
    .where('role', '=', 'assistant')
    .execute()

/** Drops a reply after three chunks, resumes it on `resumeOn`, and checks nothing is lost or repeated. */
const dropAndResume = async (resumeOn: TestServer) => {
  const session = await startSession(server)
  llm.queue({ text: WORDS, delayMs: 30, usage: { input: 12, output: 10 } })
  const key = `send-${Math.random()}`
  const before = await readThenDrop(server, session, key, 3)
  const lastId = Number(before.at(-1)?.id)
  expect(textOf(before)).not.toBe(FULL_REPLY)

  const resumed = await send(resumeOn, session, { key, lastEventId: lastId })
  expect(resumed.status).toBe(200)
  expect(resumed.headers.get('idempotent-replayed')).toBe('true')
  const after = await readChatStream(resumed)

  const all = [...before, ...after]
  expect(textOf(all)).toBe(FULL_REPLY)
  expect(all.map((event) => Number(event.id))).toEqual(all.map((_, index) => index + 1))
  expect(all[0]?.event).toBe('stream_start')
  expect(all.at(-1)?.event).toBe('stream_end')
  // One generation: the retry followed the reply instead of asking the model again.
  expect(llm.requests).toHaveLength(1)
  await expect
    .poll(() => assistantRows(server, session.conversation_id))
    .toEqual([{ status: 'complete', content: FULL_REPLY }])
  return { session, key, all }
}

describe('resumable replies (Idempotency-Key + Last-Event-ID)', () => {
  it('a dropped connection retried with the same key and Last-Event-ID gets every word exactly once', async () => {
    await dropAndResume(server)
  })

  it(
    canRunTwoInstances
      ? 'the retry may reach a second instance sharing PostgreSQL and Redis'
      : 'the retry is served from the in-process log (embedded run: one instance, no Redis)',
    async () => {
      expect(other !== server).toBe(canRunTwoInstances)
      await dropAndResume(other)
    },
  )

  it('a repeat after the reply finished, without Last-Event-ID, replays it whole with the same ids', async () => {
    const { session, key, all } = await dropAndResume(server)
    const replay = await send(other, session, { key })
    expect(replay.status).toBe(200)
    const again = await readChatStream(replay)
    expect(again).toEqual(all)
    expect(llm.requests).toHaveLength(1)
  })

  it('the same key with another message answers 409 idempotency_key_reused', async () => {
    const session = await startSession(server)
    const first = await send(server, session, { key: 'k-1', message: 'Hello' })
    await readChatStream(first)
    const reused = await send(server, session, { key: 'k-1', message: 'Something else' })
    expect(reused.status).toBe(409)
    expect(await reused.json()).toEqual({
      detail: 'This Idempotency-Key was already used with another message; send a new message with a new key',
      code: 'idempotency_key_reused',
    })
  })

  it('another key while a reply streams still answers 409: one reply at a time', async () => {
    const session = await startSession(server)
    llm.queue({ text: ['Still talking'], hang: true })
    const streaming = await send(server, session, { key: 'first' })
    const reader = readChatStream(streaming)
    const second = await send(server, session, { key: 'second', message: 'Another' })
    expect(second.status).toBe(409)
    expect(((await second.json()) as { code: string }).code).toBe('conflict')
    await chatCall(server, session, 'messages/stop')
    expect((await reader).at(-1)?.event).toBe('stream_end')
  })

  it('a malformed Idempotency-Key or Last-Event-ID answers 400', async () => {
    const session = await startSession(server)
    expect((await send(server, session, { key: 'has space' })).status).toBe(400)
    expect((await send(server, session, { key: 'fine', lastEventId: -1 })).status).toBe(400)
  })

  it('no resume within the grace aborts the upstream request and stores the partial reply', async () => {
    const session = await startSession(impatient)
    llm.queue({ text: ['Partial ', 'words'], hang: true })
    const gone = llm.clientsGone()
    await readThenDrop(impatient, session, 'never-resumed', 2)
    await expect.poll(() => llm.clientsGone(), { timeout: 10_000 }).toBe(gone + 1)
    await expect
      .poll(() => assistantRows(impatient, session.conversation_id), { timeout: 10_000 })
      .toEqual([{ status: 'partial', content: 'Partial words' }])
    // The reply's end is in the log too: a late retry replays the partial reply and its end.
    const late = await readChatStream(await send(impatient, session, { key: 'never-resumed' }))
    expect(textOf(late)).toBe('Partial words')
    expect(late.at(-1)?.event).toBe('stream_end')
  })

  it('a client following the reply again keeps it going past the grace when the first one drops', async () => {
    const session = await startSession(impatient)
    // 100 ms between chunks: the rest of the reply outlasts the 200 ms grace after the drop.
    llm.queue({ text: WORDS, delayMs: 100, usage: { input: 12, output: 10 } })
    const key = 'followed-twice'
    const first = new AbortController()
    const original = await send(impatient, session, { key, signal: first.signal })
    const originalEvents: ChatEvent[] = []
    let sawThreeChunks: () => void = () => undefined
    const threeChunks = new Promise<void>((resolve) => {
      sawThreeChunks = resolve
    })
    const reading = readChatStream(original, (event) => {
      originalEvents.push(event)
      if (originalEvents.filter((e) => e.event === 'chunk').length === 3) sawThreeChunks()
    }).catch(() => undefined)
    await threeChunks
    // A second client follows from where the first one is, then the first one drops.
    const follower = await send(impatient, session, { key, lastEventId: Number(originalEvents.at(-1)?.id) })
    const following: ChatEvent[] = []
    let attached: () => void = () => undefined
    const isAttached = new Promise<void>((resolve) => {
      attached = resolve
    })
    const followed = readChatStream(follower, (event) => {
      following.push(event)
      attached()
    })
    // The follower's first event is only sent after it announced itself to the generating instance.
    await isAttached
    first.abort()
    await reading
    const rest = await followed
    // As the widget does: an id seen on both streams is the same event, shown once.
    const byId = new Map<string, ChatEvent>()
    for (const event of [...originalEvents, ...rest]) {
      const seen = byId.get(event.id ?? '')
      if (seen) expect(seen).toEqual(event)
      byId.set(event.id ?? '', event)
    }
    expect(textOf([...byId.values()])).toBe(FULL_REPLY)
    expect(rest.at(-1)?.event).toBe('stream_end')
    expect(await assistantRows(impatient, session.conversation_id)).toEqual([
      { status: 'complete', content: FULL_REPLY },
    ])
  })

  it('an upstream error mid-stream is replayed as the error event, with the partial reply stored', async () => {
    const session = await startSession(server)
    llm.queue({ text: ['Half an ', 'answer'], breakAfterText: true })
    const first = await readChatStream(await send(server, session, { key: 'broken' }))
    expect(first.map((event) => event.event)).toEqual(['stream_start', 'chunk', 'chunk', 'error'])
    const replay = await readChatStream(await send(other, session, { key: 'broken', lastEventId: 2 }))
    expect(replay).toEqual(first.slice(2))
    expect(await assistantRows(server, session.conversation_id)).toEqual([
      { status: 'partial', content: 'Half an answer' },
    ])
  })
})
