import { parse } from 'csv-parse/sync'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { roomNameFor } from '../../server/src/batch/dialer/dial-contact.ts'
import { priceReply } from '../../server/src/chat/billing.ts'
import { countOutputTokens } from '../../server/src/chat/reply-cost.ts'
import {
  attemptsOf,
  type BatchTenant,
  contactsOf,
  createBatchJob,
  hangUpAnswered,
  jobStatusOf,
  phonesFor,
  setUpBatchTenant,
} from '../../server/test/helpers/batch-dialer.ts'
import { type ChatEvent, createChatSession, readChatStream, textOf } from '../../server/test/helpers/chat.ts'
import { type FakeLiveKit, startFakeLiveKit } from '../../server/test/helpers/fake-livekit.ts'
import { type FakeLlm, startFakeLlm } from '../../server/test/helpers/fake-llm.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../server/test/helpers/organization.ts'
import { spawnWorker, type WorkerProcess } from '../../server/test/helpers/spawn-worker.ts'
import { startTestServer, type TestServer } from '../../server/test/helpers/test-server.ts'

/**
 * kill -9 as a power failure would: real server processes on the real PostgreSQL and Redis, killed
 * mid-reply, mid-dial and mid-export, replaced by new ones. Nothing written is lost, nobody is dialled twice,
 * the session goes on, and the job finishes within a bound. Heartbeats of 100 ms: a dead process
 * is known as dead 300 ms after its last beat.
 */
if (!process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL)
  throw new Error(
    'npm run test:faults needs TEST_DATABASE_URL and TEST_REDIS_URL (PostgreSQL and Redis): killed processes share only them',
  )

const FAST = {
  INSTANCE_HEARTBEAT_MS: '100',
  CHAT_CHECKPOINT_MS: '100',
  BATCH_TICK_MS: '50',
  BATCH_RETRY_BASE_MS: '10',
  // Never stale by age here: a dead process is found out by its silence alone.
  BATCH_STALE_CLAIM_MS: '3600000',
}
/** How long the suite gives a job to finish after its worker died. */
const RECOVERY_BOUND_MS = 20_000

let llm: FakeLlm
let livekit: FakeLiveKit
/** The database's keeper: an API-only instance the tests read and seed through; it never dials or streams the replies under test. */
let keeper: TestServer
const processes: WorkerProcess[] = []

const spawnServer = async (role: 'all' | 'worker') => {
  const spawned = await spawnWorker(keeper, { ...FAST, ROLE: role })
  processes.push(spawned)
  return spawned
}

beforeAll(async () => {
  llm = await startFakeLlm()
  livekit = await startFakeLiveKit()
  keeper = await startTestServer({
    env: { ...livekit.env, ...FAST, LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test-llm-key', ROLE: 'api' },
  })
})
afterAll(async () => {
  livekit?.releaseSip()
  for (const spawned of processes) await spawned.kill()
  await keeper?.destroy()
  await llm?.close()
  await livekit?.close()
})

describe('kill -9 mid-reply', () => {
  it('keeps the streamed text as partial, frees the session within a heartbeat, and answers the next message', async () => {
    const team = await createTeam(keeper)
    const key = await secretKeyFor(keeper, team.owner)
    const agent = await makeAgent(keeper, team.owner)
    const first = await spawnServer('all')
    const session = await createChatSession(keeper, { key, agentId: agent.id })
    const send = (url: string, message: string, headers: Record<string, string> = {}) =>
      fetch(`${url}/v1/chat/sessions/${session.conversation_id}/messages`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${session.session_token}`,
          'content-type': 'application/json',
          ...headers,
        },
        body: JSON.stringify({ message }),
      })

    llm.queue({ text: ['Your order ', 'A17 ships ', 'tomorrow from'], hang: true })
    // Resumable, as the widget sends: its retry after the kill must not wait for the reply forever.
    const idempotencyKey = `faults-${Date.now()}`
    const streaming = await send(first.url, 'Where is order A17?', { 'idempotency-key': idempotencyKey })
    expect(streaming.status).toBe(200)
    const seen: ChatEvent[] = []
    void readChatStream(streaming, (event) => seen.push(event)).catch(() => undefined)
    const messages = () =>
      keeper.ctx.db
        .selectFrom('chat_messages')
        .select(['role', 'content', 'status'])
        .where('conversation_id', '=', session.conversation_id)
        .orderBy('created_at')
        .orderBy('id')
        .execute()
    await vi.waitFor(
      async () =>
        expect((await messages()).at(-1)).toMatchObject({ content: 'Your order A17 ships tomorrow from' }),
      { timeout: 10_000, interval: 50 },
    )

    // What the reply's hold says of its round in progress: the prompt the dead server counted.
    const hold = await keeper.ctx.db
      .selectFrom('credit_holds')
      .select(['prompt_tokens', 'model', 'text_offset'])
      .where('reference', '=', session.conversation_id)
      .executeTakeFirstOrThrow()

    await first.kill()
    const second = await spawnServer('all')
    const killedAt = performance.now()

    // The widget's retry: the same key from the first chunk on. It hears the rest of what was
    // streamed, then that the reply was cut off, as soon as the dead server is known as dead.
    const firstChunk = seen.find((event) => event.event === 'chunk')
    const resumed = await send(second.url, 'Where is order A17?', {
      'idempotency-key': idempotencyKey,
      'last-event-id': String(firstChunk?.id),
    })
    expect(resumed.status).toBe(200)
    const replayed = await readChatStream(resumed)
    expect(performance.now() - killedAt).toBeLessThan(10_000)
    expect(textOf(replayed)).toBe('A17 ships tomorrow from')
    expect(replayed.at(-1)).toMatchObject({ event: 'error' })
    process.stdout.write(
      `  the resumed reply ended ${((performance.now() - killedAt) / 1000).toFixed(1)} s after its server was killed\n`,
    )

    llm.queue({ text: ['It ships tomorrow morning.'] })
    // Refused (409) while the dead process still counts as alive, then taken over.
    let answer = await send(second.url, 'Are you still there?')
    while (answer.status === 409) {
      await answer.text()
      expect(performance.now() - killedAt).toBeLessThan(10_000)
      await new Promise((resolve) => setTimeout(resolve, 50))
      answer = await send(second.url, 'Are you still there?')
    }
    expect(answer.status).toBe(200)
    process.stdout.write(
      `  the session answered again ${((performance.now() - killedAt) / 1000).toFixed(1)} s after its server was killed (a new process started meanwhile)\n`,
    )
    expect((await readChatStream(answer)).at(-1)?.event).toBe('stream_end')

    expect(await messages()).toEqual([
      { role: 'user', content: 'Where is order A17?', status: 'complete' },
      { role: 'assistant', content: 'Your order A17 ships tomorrow from', status: 'partial' },
      { role: 'user', content: 'Are you still there?', status: 'complete' },
      { role: 'assistant', content: 'It ships tomorrow morning.', status: 'complete' },
    ])
    // The model heard the partial reply as part of the conversation.
    expect(JSON.stringify(llm.requests.at(-1)?.messages)).toContain('Your order A17 ships tomorrow from')

    // The streamed part was charged, once, by an instance that found the first one dead: the
    // prompt its hold counted and the checkpointed text's tokens, at the model's price.
    const cutOff = () =>
      keeper.ctx.db
        .selectFrom('credit_ledger')
        .select(['amount_micros', 'reference'])
        .where('organization_id', '=', team.organizationId)
        .where('reason', '=', 'Chat reply (cut off)')
        .execute()
    await vi.waitFor(async () => expect(await cutOff()).toHaveLength(1), { timeout: 10_000, interval: 50 })
    const outputTokens = countOutputTokens(keeper.ctx, {
      model: hold.model ?? '',
      text: 'Your order A17 ships tomorrow from'.slice(hold.text_offset),
    })
    const expected = priceReply(keeper.config, {
      model: hold.model ?? '',
      usage: { inputTokens: hold.prompt_tokens ?? 0, outputTokens },
    })
    expect(expected).toBeGreaterThan(0)
    expect((await cutOff()).map((row) => [Number(row.amount_micros), row.reference])).toEqual([
      [-expected, session.conversation_id],
    ])
    process.stdout.write(
      `  the cut-off reply was charged ${expected} micro-USD (${hold.prompt_tokens} prompt + ${outputTokens} streamed tokens)\n`,
    )
  })
})

describe('kill -9 mid-dial', () => {
  let tenant: BatchTenant
  beforeAll(async () => {
    tenant = await setUpBatchTenant(keeper, { number: '+14155550177' })
  })

  it('dials nobody twice, loses no contact, and finishes the job within the bound', async () => {
    const phones = phonesFor(10, 9100)
    const [ringing1, ringing2] = phones as [string, string]
    for (const phone of phones) livekit.scriptSip(phone, { result: 'answered' })
    livekit.scriptSip(ringing1, { result: 'answered', hold: true })
    livekit.scriptSip(ringing2, { result: 'answered', hold: true })
    const first = await spawnServer('worker')
    const batchJobId = await createBatchJob(keeper, tenant, {
      contacts: phones.map((phone) => ({ phone })),
      concurrentCallLimit: 4,
    })
    // Mid-job: two calls answered and live, two dials ringing.
    await vi.waitFor(
      async () => {
        expect((await attemptsOf(keeper, batchJobId)).filter((a) => a.outcome === 'answered')).toHaveLength(2)
      },
      { timeout: 30_000, interval: 50 },
    )
    await first.kill()
    const killedAt = performance.now()

    livekit.releaseSip()
    await spawnServer('worker')
    const lost = (await attemptsOf(keeper, batchJobId)).filter(
      (a) => a.phone === ringing1 || a.phone === ringing2,
    )
    for (const attempt of lost) livekit.vanishRoom(roomNameFor({ jobId: batchJobId, attemptId: attempt.id }))
    await vi.waitFor(
      async () => {
        await hangUpAnswered(keeper, livekit, batchJobId)
        expect((await jobStatusOf(keeper, batchJobId)).status).toBe('completed')
      },
      { timeout: RECOVERY_BOUND_MS, interval: 100 },
    )
    const recoverySeconds = (performance.now() - killedAt) / 1000

    for (const phone of phones) expect(livekit.dialsTo(phone)).toBe(1)
    const contacts = await contactsOf(keeper, batchJobId)
    expect(contacts).toHaveLength(phones.length)
    expect(contacts.every((contact) => contact.status === 'completed' || contact.status === 'failed')).toBe(
      true,
    )
    expect((await attemptsOf(keeper, batchJobId)).length).toBe(phones.length)
    process.stdout.write(`  the job finished ${recoverySeconds.toFixed(1)} s after its worker was killed\n`)
  })
})

describe('kill -9 mid-export', () => {
  it('writes the export again, whole, within the bound instead of after the job lock’s five minutes', async () => {
    const team = await createTeam(keeper)
    // 60,000 ledger rows: a file of many pieces, long enough in the writing to be cut.
    const rows = 60_000
    await sql`insert into credit_ledger (id, organization_id, amount_micros, balance_after_micros, kind, reason, created_at)
      select 'L' || lpad(n::text, 7, '0'), ${team.organizationId}, 1000, 1000 * n, 'grant', 'Faults ' || n,
        timestamptz '2026-01-01T00:00:00Z' + make_interval(secs => n)
      from generate_series(1, ${rows}) n`.execute(keeper.ctx.db)
    // The earlier tests' processes run jobs too: only the one killed here may take this export.
    for (const spawned of processes) await spawned.kill()
    const first = await spawnServer('worker')
    const created = await keeper.request('/api/export', {
      method: 'POST',
      token: team.owner.session.token,
      json: { kind: 'ledger', format: 'csv' },
    })
    expect(created.status).toBe(202)
    const { id } = (await created.json()) as { id: string }
    const progress = () =>
      keeper.ctx.db
        .selectFrom('exports')
        .select(['status', 'rows_done', 'runs', 'instance_id'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    // Mid-export: pieces written, far from the end.
    await vi.waitFor(
      async () => {
        const now = await progress()
        expect(now.status).toBe('running')
        expect(now.rows_done).toBeGreaterThan(0)
      },
      { timeout: 30_000, interval: 20 },
    )
    await first.kill()
    const killedAt = performance.now()
    const cut = await progress()
    expect(cut.status).toBe('running')
    expect(cut.rows_done).toBeLessThan(rows)

    await spawnServer('worker')
    const readyAt = performance.now()
    // Taken over as soon as the new worker's first sweep sees the silence, then written whole.
    await vi.waitFor(async () => expect((await progress()).runs).toBe(2), {
      timeout: RECOVERY_BOUND_MS,
      interval: 50,
    })
    const takeoverSeconds = (performance.now() - killedAt) / 1000
    const afterReadySeconds = (performance.now() - readyAt) / 1000
    await vi.waitFor(async () => expect((await progress()).status).toBe('completed'), {
      timeout: RECOVERY_BOUND_MS,
      interval: 100,
    })
    const recoverySeconds = (performance.now() - killedAt) / 1000
    expect((await progress()).runs).toBe(2)
    const download = await keeper.request(`/api/export/${id}/download`, { token: team.owner.session.token })
    expect(download.status).toBe(200)
    const records = parse(await download.text(), { columns: true }) as Array<{ id: string }>
    // The trial grant and every inserted row, once each.
    expect(records).toHaveLength(rows + 1)
    expect(new Set(records.map((record) => record.id)).size).toBe(rows + 1)
    process.stdout.write(
      `  the export was taken over ${takeoverSeconds.toFixed(1)} s (${afterReadySeconds.toFixed(1)} s after a new worker was ready) and completed ${recoverySeconds.toFixed(1)} s after its worker was killed (cut at ${cut.rows_done} of ${rows + 1} rows)\n`,
    )
  })
})
