import { sql } from 'kysely'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { setBalanceMicros } from '../../test/helpers/billing.ts'
import { chatCall, createChatSession, readChatStream, sendChat, textOf } from '../../test/helpers/chat.ts'
import { type CompletionRequest, type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { updateAgent } from '../agents/service.ts'
import { auditBySystem } from '../audit/index.ts'
import { createApiKey, revokeKey } from '../keys/service.ts'

let server: TestServer
let llm: FakeLlm
let team: Awaited<ReturnType<typeof createTeam>>
let key: string

beforeAll(async () => {
  llm = await startFakeLlm()
  server = await startTestServer({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test-llm-key' } })
  team = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
})
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
})
beforeEach(async () => {
  llm.reset()
  await setBalanceMicros(server, { organizationId: team.organizationId, micros: 5_000_000 })
})

const actor = () => ({
  organizationId: team.organizationId,
  userId: team.owner.userId,
  role: 'owner' as const,
})

/** The system prompt of a request the model received. */
const systemOf = (request: CompletionRequest | undefined) => request?.messages[0]?.content

/** Waits until the fake model has seen `count` clients go away. */
const waitForClientsGone = (count: number) =>
  vi.waitFor(() => expect(llm.clientsGone()).toBe(count), { timeout: 15_000 })

/**
 * Holds the conversation's row in a transaction until `release` is called: the reply's claim
 * (its one statement before streaming) waits for it, so what the server does before the claim
 * can be watched. A reply places its credit hold (the organization's row, not the
 * conversation's) before its guess starts, so the hold goes through meanwhile. The embedded
 * database has one connection, which such a transaction would hold, hold and all: there the send
 * goes on at once, and the tests check what it did rather than when.
 */
const canHoldClaim = Boolean(process.env.TEST_DATABASE_URL)
const holdClaim = async (conversationId: string) => {
  if (!canHoldClaim) return { release: () => {} }
  let release = () => {}
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  const held = new Promise<void>((resolve) => {
    void server.ctx.db.transaction().execute(async (tx) => {
      await sql`select id from conversations where id = ${conversationId} for update`.execute(tx)
      resolve()
      await released
    })
  })
  await held
  return { release }
}

const startSession = async (agentId: string) => createChatSession(server, { key, agentId })

/**
 * Sends `message` while the reply's claim is held, waits until the model has been asked (so the
 * request was made from the cache, before the claim), runs `whileHeld`, then lets the claim go.
 * Answers the send's response.
 */
const sendWhileClaimHeld = async (
  session: Awaited<ReturnType<typeof createChatSession>>,
  message: string,
  whileHeld: () => void = () => {},
) => {
  const hold = await holdClaim(session.conversation_id)
  const sending = chatCall(server, session, 'messages', { json: { message } })
  // Held, the claim lets exactly one request through; unheld (embedded), a cancelled guess may
  // already have been followed by its answer from the claim, so at least one is what is known.
  await vi.waitFor(() => expect(llm.requests.length).toBeGreaterThanOrEqual(1), { timeout: 15_000 })
  if (canHoldClaim) expect(llm.requests).toHaveLength(1)
  whileHeld()
  hold.release()
  return sending
}

describe('a reply started from what the last reply left (CHAT_PLAN_CACHE_ENTRIES)', () => {
  it('asks the model before its claim is read, and goes on with that request when the claim agrees', async () => {
    const agent = await makeAgent(server, team.owner, {
      name: 'Guessing Agent',
      systemPrompt: 'Answer briefly.',
    })
    llm.setFallback({ text: ['First', ' answer'], usage: { input: 10, output: 2 } })
    const session = await startSession(agent.id)
    await sendChat(server, session, 'Question one')

    llm.reset()
    const gone = llm.clientsGone()
    llm.setFallback({ text: ['Second', ' answer'], usage: { input: 20, output: 2 } })
    const response = await sendWhileClaimHeld(session, 'Question two')
    expect(response.status).toBe(200)
    const events = await readChatStream(response)

    expect(textOf(events)).toBe('Second answer')
    // One request for the reply, never repeated, and exactly the conversation as stored.
    expect(llm.requests).toHaveLength(1)
    expect(llm.clientsGone()).toBe(gone)
    expect(llm.requests[0]?.messages.map(({ role, content }) => ({ role, content }))).toEqual([
      { role: 'system', content: 'Answer briefly.' },
      { role: 'user', content: 'Question one' },
      { role: 'assistant', content: 'First answer' },
      { role: 'user', content: 'Question two' },
    ])
  })

  it('cancels the guess when the agent changed since, and answers from the new prompt', async () => {
    const agent = await makeAgent(server, team.owner, { name: 'Changing Agent', systemPrompt: 'Old prompt.' })
    const session = await startSession(agent.id)
    await sendChat(server, session, 'Hello')
    llm.setFallback((request) => ({
      text: [systemOf(request) === 'New prompt.' ? 'From the new prompt' : 'From the old prompt'],
      // The old prompt's reply would take long: it is cut off before it says anything.
      delayMs: systemOf(request) === 'New prompt.' ? 0 : 2000,
    }))
    await updateAgent(server.ctx, actor(), {
      agentId: agent.id,
      changes: { sysMsg: 'New prompt.' },
      surface: 'v1',
      by: auditBySystem,
    })

    llm.reset()
    const gone = llm.clientsGone()
    const response = await sendWhileClaimHeld(session, 'Again', () =>
      expect(systemOf(llm.requests[0])).toBe('Old prompt.'),
    )
    const events = await readChatStream(response)

    expect(textOf(events)).toBe('From the new prompt')
    expect(llm.requests.map(systemOf)).toEqual(['Old prompt.', 'New prompt.'])
    await waitForClientsGone(gone + 1)
  })

  it('refuses a reply the credits do not cover before any model call, guess or not, and stores nothing', async () => {
    const agent = await makeAgent(server, team.owner, { name: 'Refused Agent' })
    llm.setFallback({ text: ['Fine'] })
    const session = await startSession(agent.id)
    await sendChat(server, session, 'First')
    await setBalanceMicros(server, { organizationId: team.organizationId, micros: 0 })
    llm.reset()

    // The instance remembers the session (it would guess), but the hold comes first.
    const refused = await chatCall(server, session, 'messages', { json: { message: 'Anyone there?' } })
    expect(refused.status).toBe(402)
    expect(((await refused.json()) as { code: string }).code).toBe('insufficient_credits')
    const again = await chatCall(server, session, 'messages', { json: { message: 'Anyone there?' } })
    expect(again.status).toBe(402)
    await again.text()
    expect(llm.requests).toHaveLength(0)
    const history = await chatCall(server, session, 'history')
    expect(((await history.json()) as { count: number }).count).toBe(2)
  })

  it('a revoked key answers 401 invalid_token, and no model request outlives the refusal', async () => {
    const ownKey = await createApiKey(server.ctx, {
      organizationId: team.organizationId,
      createdBy: team.owner.userId,
      name: 'soon revoked',
      type: 'secret',
      allowedDomains: [],
      by: auditBySystem,
    })
    const agent = await makeAgent(server, team.owner, { name: 'Revoked Agent' })
    llm.setFallback({ text: ['Never'], delayMs: 2000 })
    const session = await createChatSession(server, { key: ownKey.key, agentId: agent.id })
    await revokeKey(server.ctx, { kind: 'studio', ...actor() }, ownKey.id, auditBySystem)
    const gone = llm.clientsGone()

    // The claim's key check refuses without waiting for any row, beside the credit hold: a guess
    // started once the hold was placed is cancelled, and one not yet started never is.
    const refused = await chatCall(server, session, 'messages', { json: { message: 'Hello?' } })
    expect(refused.status).toBe(401)
    expect(((await refused.json()) as { code: string }).code).toBe('invalid_token')
    expect(llm.requests.length).toBeLessThanOrEqual(1)
    await vi.waitFor(() => expect(llm.clientsGone() - gone).toBe(llm.requests.length), { timeout: 15_000 })
  })
})
