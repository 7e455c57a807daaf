import { createServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createChatSession, readChatStream } from '../helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../helpers/organization.ts'
import { spawnWorker, type WorkerProcess } from '../helpers/spawn-worker.ts'
import { startTestServer, type TestServer } from '../helpers/test-server.ts'

/**
 * kill -9 of the instance streaming a reply: the surviving instance sees its heartbeat stop,
 * keeps the reply's text as `partial`, frees the slot and the hold, and the session answers again
 * through a restarted instance. Needs PostgreSQL (TEST_DATABASE_URL): two processes share it.
 */
const HEARTBEAT_MS = '200'
/** Three missed heartbeats, then the next sweep: far under this. */
const RECOVERY_BOUND_MS = 10_000

let llm: FakeLlm
let server: TestServer
const children: WorkerProcess[] = []

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

/** Another Parley process on the same database, serving HTTP on its own port. */
const spawnInstance = async () => {
  const port = await freePort()
  const child = await spawnWorker(server, {
    ROLE: 'api',
    PORT: String(port),
    INSTANCE_HEARTBEAT_MS: HEARTBEAT_MS,
  })
  children.push(child)
  return { child, url: `http://127.0.0.1:${port}` }
}

beforeAll(async () => {
  if (!process.env.TEST_DATABASE_URL)
    throw new Error('npm run test:faults needs TEST_DATABASE_URL (PostgreSQL)')
  llm = await startFakeLlm()
  server = await startTestServer({ env: { LLM_BASE_URL: llm.baseUrl, INSTANCE_HEARTBEAT_MS: HEARTBEAT_MS } })
})
afterAll(async () => {
  for (const child of children) await child.kill()
  await server?.destroy()
  await llm?.close()
})

describe('kill -9 mid-reply', () => {
  it('keeps the partial reply, frees the session and its hold within the bound, and the session goes on', async () => {
    const team = await createTeam(server)
    const key = await secretKeyFor(server, team.owner)
    const agent = await makeAgent(server, team.owner)
    const session = await createChatSession(server, { key, agentId: agent.id })
    // The model stops after its first two chunks and never finishes: the instance dies meanwhile.
    llm.queue({
      text: ['Half', ' a sen', 'tence'],
      hold: { atChunk: 2, until: new Promise(() => undefined) },
    })

    const doomed = await spawnInstance()
    const send = (url: string, message: string) =>
      fetch(`${url}/v1/chat/sessions/${session.conversation_id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${session.session_token}` },
        body: JSON.stringify({ message }),
      })
    const response = await send(doomed.url, 'Tell me everything')
    expect(response.status).toBe(200)
    let chunks = 0
    const reading = readChatStream(response, (event) => {
      if (event.event === 'chunk') chunks++
    }).catch(() => [])
    const savedText = async () =>
      (
        await server.ctx.db
          .selectFrom('conversations')
          .select('reply_partial_text')
          .where('id', '=', session.conversation_id)
          .executeTakeFirstOrThrow()
      ).reply_partial_text
    await vi.waitFor(async () => expect(await savedText()).toBe('Half a sen'), { timeout: 5000 })
    expect(chunks).toBe(2)

    await doomed.child.kill()
    await reading
    const killedAt = Date.now()
    await vi.waitFor(
      async () => {
        const row = await server.ctx.db
          .selectFrom('conversations')
          .select('reply_started_at')
          .where('id', '=', session.conversation_id)
          .executeTakeFirstOrThrow()
        expect(row.reply_started_at).toBeNull()
      },
      { timeout: RECOVERY_BOUND_MS, interval: 50 },
    )
    expect(Date.now() - killedAt).toBeLessThan(RECOVERY_BOUND_MS)

    const restarted = await spawnInstance()
    llm.queue({ text: ['All', ' of it'], usage: { input: 10, output: 3 } })
    const again = await send(restarted.url, 'Go on')
    expect(again.status).toBe(200)
    const events = await readChatStream(again)
    expect(events.at(-1)?.event).toBe('stream_end')

    // No lost rows: both user messages, the partial reply, the new reply; no hold left open.
    const messages = await server.ctx.db
      .selectFrom('chat_messages')
      .select(['role', 'content', 'status'])
      .where('conversation_id', '=', session.conversation_id)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
    expect(messages.map((m) => [m.role, m.content, m.status])).toEqual([
      ['user', 'Tell me everything', 'complete'],
      ['assistant', 'Half a sen', 'partial'],
      ['user', 'Go on', 'complete'],
      ['assistant', 'All of it', 'complete'],
    ])
    const holds = await server.ctx.db
      .selectFrom('credit_holds')
      .select('id')
      .where('organization_id', '=', team.organizationId)
      .execute()
    expect(holds).toEqual([])
  })
})
