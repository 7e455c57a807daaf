import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ChatEvent, chatCall, createChatSession, readChatStream } from '../../test/helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { replyLogOf } from './reply-log.ts'
import { REPLY_CUT_OFF_MESSAGE } from './resume.ts'

/**
 * A reply belongs to the instance streaming it, and that instance's heartbeat says whether it
 * lives: a reply whose instance died (kill -9, power loss) no longer holds the session for the
 * 10-minute stale bound; one whose instance lives still does.
 */
let server: TestServer
let llm: FakeLlm
let team: Awaited<ReturnType<typeof createTeam>>
let key: string

beforeAll(async () => {
  llm = await startFakeLlm()
  server = await startTestServer({
    env: {
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: 'test-llm-key',
      CHAT_CHECKPOINT_MS: '50',
      INSTANCE_HEARTBEAT_MS: '100',
    },
  })
  team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
})
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
})

/** A reply left in progress by `instanceId`, as its claim would have left it. */
const replyInProgress = (conversationId: string, instanceId: string) =>
  server.ctx.db
    .updateTable('conversations')
    .set({ reply_started_at: new Date(), reply_instance_id: instanceId })
    .where('id', '=', conversationId)
    .execute()

/** A heartbeat that keeps an instance alive however slow the test runs. */
const inAMinute = () => new Date(Date.now() + 60_000)

const markDead = (instanceId: string) =>
  server.ctx.db
    .updateTable('server_instances')
    .set({ last_seen_at: new Date(Date.now() - 60_000) })
    .where('id', '=', instanceId)
    .execute()

describe('instance liveness', () => {
  it('this instance beats: its row in server_instances is fresh', async () => {
    const row = await server.ctx.db
      .selectFrom('server_instances')
      .selectAll()
      .where('id', '=', server.ctx.instanceId)
      .executeTakeFirstOrThrow()
    expect(Date.now() - row.last_seen_at.getTime()).toBeLessThan(60_000)
  })

  it('takes over at once a reply whose instance is dead, and waits for one whose instance lives', async () => {
    const agent = await makeAgent(server, team.owner)
    const session = await createChatSession(server, { key, agentId: agent.id })

    await server.ctx.db
      .insertInto('server_instances')
      .values({ id: 'alive-elsewhere', last_seen_at: inAMinute() })
      .execute()
    await replyInProgress(session.conversation_id, 'alive-elsewhere')
    const busy = await chatCall(server, session, 'messages', { json: { message: 'hello?' } })
    expect(busy.status).toBe(409)
    await busy.text()

    // Its instance died: no heartbeat since long ago (or never a row at all).
    await markDead('alive-elsewhere')
    const taken = await chatCall(server, session, 'messages', { json: { message: 'hello again' } })
    expect(taken.status).toBe(200)
    expect((await readChatStream(taken)).at(-1)?.event).toBe('stream_end')

    await replyInProgress(session.conversation_id, 'never-had-a-heartbeat')
    const again = await chatCall(server, session, 'messages', { json: { message: 'and again' } })
    expect(again.status).toBe(200)
    await readChatStream(again)
  })

  it('checkpoints a streaming reply as partial text: the owner sees it, the visitor’s history follows the stream instead', async () => {
    const agent = await makeAgent(server, team.owner)
    const session = await createChatSession(server, { key, agentId: agent.id })
    llm.queue({ text: ['Your parcel ', 'left the depot'], hang: true })
    const streaming = await chatCall(server, session, 'messages', { json: { message: 'Where is it?' } })
    const reading = readChatStream(streaming).catch(() => [])

    const stored = () =>
      server.ctx.db
        .selectFrom('chat_messages')
        .select(['role', 'content', 'status'])
        .where('conversation_id', '=', session.conversation_id)
        .where('role', '=', 'assistant')
        .execute()
    await expect
      .poll(stored, { timeout: 10_000 })
      .toEqual([{ role: 'assistant', content: 'Your parcel left the depot', status: 'partial' }])
    const history = await (await chatCall(server, session, 'history')).json()
    expect(history.messages.map((message: { role: string }) => message.role)).toEqual(['user'])
    expect(history.count).toBe(1)

    // Stopped: the checkpoint becomes the reply's record, stored once.
    expect((await chatCall(server, session, 'messages/stop')).status).toBe(200)
    await reading
    await expect
      .poll(stored, { timeout: 10_000 })
      .toEqual([{ role: 'assistant', content: 'Your parcel left the depot', status: 'stopped' }])
    const after = await (await chatCall(server, session, 'history')).json()
    expect(after.messages.map((message: { content: string }) => message.content)).toEqual([
      'Where is it?',
      'Your parcel left the depot',
    ])
  })

  it('ends the resume of a reply whose instance died: what was logged, then an error, not the retention', async () => {
    const agent = await makeAgent(server, team.owner)
    const session = await createChatSession(server, { key, agentId: agent.id })
    const message = 'Where is my parcel?'
    const scope = { conversationId: session.conversation_id, idempotencyKey: `cut-off-${Date.now()}` }
    await server.ctx.db
      .insertInto('server_instances')
      .values({ id: 'streaming-elsewhere', last_seen_at: inAMinute() })
      .execute()
    // The reply as that instance left it in the log (Redis in the PostgreSQL run): two chunks.
    const log = replyLogOf(server.ctx)
    const requestHash = createHash('sha256').update(message).digest('hex')
    await log.reserve(scope, { requestHash, instanceId: 'streaming-elsewhere' })
    log.append(scope, { id: 1, event: 'chunk', data: { delta: 'Your parcel ' } })
    log.append(scope, { id: 2, event: 'chunk', data: { delta: 'left the depot' } })

    const resumed = await chatCall(server, session, 'messages', {
      json: { message },
      headers: { 'idempotency-key': scope.idempotencyKey, 'last-event-id': '1' },
    })
    expect(resumed.status).toBe(200)
    const events: ChatEvent[] = []
    const reading = readChatStream(resumed, (event) => events.push(event))
    // Replayed, then followed while its instance lives.
    await expect.poll(() => events.length, { timeout: 10_000 }).toBe(1)

    await markDead('streaming-elsewhere')
    expect(await reading).toEqual([
      { id: '2', event: 'chunk', data: { delta: 'left the depot' } },
      { id: '3', event: 'error', data: { error: REPLY_CUT_OFF_MESSAGE } },
    ])
  })
})
