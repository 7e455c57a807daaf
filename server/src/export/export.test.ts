import { parse } from 'csv-parse/sync'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBatchJson, registerPhoneNumber, validPhones } from '../../test/helpers/batch.ts'
import { createChatSession, sendChat } from '../../test/helpers/chat.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startVoiceSession, startVoiceStack, type VoiceStack } from '../../test/helpers/voice.ts'
import { debitUsage } from '../billing/service.ts'
import { escapeFormula } from './service.ts'

/**
 * Exports through the studio API against the real server and database: every kind in both
 * formats, progress, the streamed file, formula escaping, bounds, size refusal, roles, isolation.
 */
const MAX_ROWS = 1000
let stack: VoiceStack
let team: Awaited<ReturnType<typeof createTeam>>
let key: string
let agentId: string
const conversationIds: string[] = []

const studio = (path: string, init: { method?: string; json?: unknown; token?: string } = {}) =>
  stack.server.request(path, { ...init, token: init.token ?? team.owner.session.token })

type ExportView = { id: string; status: string; rowsTotal: number; rowsDone: number; bytes: number }

/** Asks for an export and waits until its job finished; answers it as GET shows it then. */
const exportOf = async (json: Record<string, unknown>, token?: string) => {
  const created = await studio('/api/export', { method: 'POST', json, ...(token ? { token } : {}) })
  expect(created.status).toBe(202)
  const queued = (await created.json()) as ExportView
  expect(queued.status).toBe('queued')
  let view = queued
  await expect
    .poll(
      async () => {
        view = (await (await studio(`/api/export/${queued.id}`, token ? { token } : {})).json()) as ExportView
        return view.status
      },
      { timeout: 15_000 },
    )
    .toBe('completed')
  return view
}

const download = async (id: string, token?: string) => {
  const response = await studio(`/api/export/${id}/download`, token ? { token } : {})
  return { response, text: await response.text() }
}

/** An export of the team's calls as its request left it: queued, its job not yet run. */
const insertQueuedExport = (id: string) =>
  stack.server.ctx.db
    .insertInto('exports')
    .values({
      id,
      organization_id: team.organizationId,
      requested_by: team.owner.userId,
      kind: 'calls',
      format: 'csv',
      from_at: null,
      to_at: new Date(),
      status: 'queued',
      rows_total: 4,
      error: null,
      created_at: new Date(),
      completed_at: null,
      expires_at: new Date(Date.now() + 60_000),
    })
    .execute()

beforeAll(async () => {
  // Heartbeats of 100 ms: an instance silent for 300 ms is dead, and exports are swept as often.
  stack = await startVoiceStack({ env: { EXPORT_MAX_ROWS: String(MAX_ROWS), INSTANCE_HEARTBEAT_MS: '100' } })
  team = await createTeam(stack.server)
  key = await secretKeyFor(stack.server, team.owner)
  agentId = (await makeAgent(stack.server, team.owner)).id
  for (const said of ['=HYPERLINK("https://evil.example","click")', 'Where is order A17?']) {
    const session = await createChatSession(stack.server, { key, agentId, user_identifier: 'ada' })
    stack.llm.queue({ text: ['It ships tomorrow.'] })
    await sendChat(stack.server, session, said)
    conversationIds.push(session.conversation_id)
  }
})
afterAll(async () => {
  await stack?.close()
})

describe('POST /api/export', () => {
  it('exports conversations with their messages as NDJSON, oldest first, with progress', async () => {
    const done = await exportOf({ kind: 'conversations', format: 'ndjson' })
    expect(done).toMatchObject({ rowsTotal: 2, rowsDone: 2, bytes: expect.any(Number) })
    const { response, text } = await download(done.id)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/x-ndjson')
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="parley-conversations-.+\.ndjson"$/,
    )
    expect(Buffer.byteLength(text)).toBe(done.bytes)
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines.map((line) => line.id)).toEqual(conversationIds)
    expect(lines[1]).toMatchObject({
      agent_id: agentId,
      user_identifier: 'ada',
      messages: [
        { role: 'user', content: 'Where is order A17?', channel: 'text' },
        { role: 'assistant', content: 'It ships tomorrow.', channel: 'text' },
      ],
    })
  })

  it('writes CSV with a header, one row per conversation, and formulas escaped', async () => {
    const done = await exportOf({ kind: 'conversations', format: 'csv' })
    const { response, text } = await download(done.id)
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    const [header, ...rows] = parse(text) as string[][]
    expect(header?.slice(0, 3)).toEqual(['id', 'agent_id', 'agent_name'])
    expect(rows).toHaveLength(2)
    const transcript = rows[0]?.[header?.indexOf('transcript') ?? -1]
    // The cell starts with "user: ", so it is no formula; a cell that starts with "=" is escaped.
    expect(transcript).toBe('user: =HYPERLINK("https://evil.example","click")\nassistant: It ships tomorrow.')
    for (const [cell, written] of [
      ['=1+1', "'=1+1"],
      ['+14155550100', "'+14155550100"],
      ['-2', "'-2"],
      ['@SUM(A1)', "'@SUM(A1)"],
      ['\tx', "'\tx"],
      ['plain', 'plain'],
    ])
      expect(escapeFormula(cell as string)).toBe(written)
  })

  it('exports calls with transcripts, batch contacts with outcomes, and the ledger with signed amounts', async () => {
    const pipeline = await makeAgent(stack.server, team.owner, { agentArchitecture: 'pipeline' })
    const call = await startVoiceSession(stack.server, { key, agentId: pipeline.id })
    await stack.server.request(`/v1/calls/${call.callId}/transcript`, {
      method: 'POST',
      token: stack.workerToken,
      json: { lines: [{ role: 'user', content: '@channel refund please' }] },
    })
    const calls = await exportOf({ kind: 'calls', format: 'csv' })
    const [callHeader, callRow] = parse((await download(calls.id)).text) as string[][]
    expect(callRow?.[callHeader?.indexOf('id') ?? -1]).toBe(call.callId)
    expect(callRow?.[callHeader?.indexOf('transcript') ?? -1]).toBe('user: @channel refund please')

    await registerPhoneNumber(stack.server, key, {
      number: '+14155550199',
      outboundAgentId: pipeline.id,
      sipTrunkId: 'ST_test',
    })
    const phoneNumberId = (
      await stack.server.ctx.db
        .selectFrom('phone_numbers')
        .select('id')
        .where('organization_id', '=', team.organizationId)
        .executeTakeFirstOrThrow()
    ).id
    const job = await createBatchJson(stack.server, key, {
      name: 'Renewals',
      fromPhoneNumberId: phoneNumberId,
      scheduledStartTime: '2099-01-01T09:00:00Z',
      contacts: validPhones(3).map((phone, index) => ({ phone, name: index === 0 ? '=cmd|calc' : 'Bo' })),
    })
    expect(job.status).toBeLessThan(300)
    const contacts = await exportOf({ kind: 'batch_contacts', format: 'ndjson' })
    const contactLines = (await download(contacts.id)).text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(contactLines.map((line) => [line.job_name, line.position, line.status])).toEqual([
      ['Renewals', 0, 'pending'],
      ['Renewals', 1, 'pending'],
      ['Renewals', 2, 'pending'],
    ])
    const contactsCsv = await exportOf({ kind: 'batch_contacts', format: 'csv' })
    expect((await download(contactsCsv.id)).text).toContain(",'=cmd|calc,")

    await debitUsage(stack.server.ctx, {
      organizationId: team.organizationId,
      amountMicros: 50_000,
      reason: 'Chat reply',
      reference: conversationIds[0] ?? 'export-test',
    })
    const ledger = await exportOf({ kind: 'ledger', format: 'csv' })
    const ledgerText = (await download(ledger.id)).text
    const [ledgerHeader, ...entries] = parse(ledgerText) as string[][]
    const amounts = entries.map((entry) => entry[ledgerHeader?.indexOf('amount_usd') ?? -1])
    // Numbers keep their sign: a debit is -0.05, not a text cell '-0.05.
    expect(amounts).toContain('-0.05')
    expect(ledgerText).not.toContain("'-0.05")
  })

  it('bounds by from and to, and a member may export what members read but not the ledger', async () => {
    const future = await exportOf({ kind: 'conversations', format: 'csv', from: '2099-01-01T00:00:00Z' })
    expect(future.rowsDone).toBe(0)
    expect(parse((await download(future.id)).text)).toHaveLength(1) // the header alone

    const memberToken = team.member.session.token
    const asMember = await exportOf({ kind: 'conversations', format: 'ndjson' }, memberToken)
    expect((await download(asMember.id, memberToken)).response.status).toBe(200)
    const refused = await studio('/api/export', {
      method: 'POST',
      json: { kind: 'ledger', format: 'csv' },
      token: memberToken,
    })
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({ code: 'forbidden' })
  })

  it('refuses bad requests, exports above the limit with their size, and others’ or unfinished exports', async () => {
    for (const [json, field] of [
      [{ kind: 'everything', format: 'csv' }, 'kind'],
      [{ kind: 'calls', format: 'xlsx' }, 'format'],
      [{ kind: 'calls', format: 'csv', colour: 'red' }, 'colour'],
      [{ kind: 'calls', format: 'csv', from: 'yesterday' }, 'from'],
      [{ kind: 'calls', format: 'csv', from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'to'],
    ] as const) {
      const response = await studio('/api/export', { method: 'POST', json })
      expect(response.status).toBe(400)
      expect((await response.json()).error).toContain(field)
    }

    // A second organization with more ledger rows than EXPORT_MAX_ROWS.
    const big = await createTeam(stack.server)
    await sql`insert into credit_ledger (id, organization_id, amount_micros, balance_after_micros, kind, reason, created_at)
      select 'bulk-' || n, ${big.organizationId}, 1, n, 'credit', 'bulk', now() - make_interval(secs => n)
      from generate_series(1, ${MAX_ROWS + 5}) n`.execute(stack.server.ctx.db)
    const tooLarge = await studio('/api/export', {
      method: 'POST',
      json: { kind: 'ledger', format: 'ndjson' },
      token: big.owner.session.token,
    })
    expect(tooLarge.status).toBe(413)
    expect(await tooLarge.json()).toEqual({
      code: 'export_too_large',
      error: `This export would have ${(MAX_ROWS + 6).toLocaleString('en-US')} rows; the limit is ${MAX_ROWS.toLocaleString('en-US')}. Narrow it with from and to.`,
    })
    const narrowed = await exportOf(
      { kind: 'ledger', format: 'ndjson', from: new Date(Date.now() - 100_000).toISOString() },
      big.owner.session.token,
    )
    expect(narrowed.rowsDone).toBeGreaterThan(90)

    const ours = await exportOf({ kind: 'calls', format: 'ndjson' })
    for (const path of [`/api/export/${ours.id}`, `/api/export/${ours.id}/download`]) {
      const theirs = await studio(path, { token: big.owner.session.token })
      expect(theirs.status).toBe(404)
    }
    // An export still queued (its job not yet run) is not ready to download.
    await insertQueuedExport('queued-export')
    const early = await studio('/api/export/queued-export/download')
    expect(early.status).toBe(409)
    expect(await early.json()).toMatchObject({ code: 'export_not_ready' })

    // Three exports unfinished: a fourth waits its turn (429 with Retry-After).
    for (const id of ['queued-2', 'queued-3']) await insertQueuedExport(id)
    const fourth = await studio('/api/export', { method: 'POST', json: { kind: 'calls', format: 'csv' } })
    expect(fourth.status).toBe(429)
    expect(fourth.headers.get('retry-after')).toBe('30')
    expect(await fourth.json()).toMatchObject({ code: 'rate_limited' })
  })

  it('writes a large export in pieces and streams all of them back', async () => {
    const large = await createTeam(stack.server)
    const largeAgent = await makeAgent(stack.server, large.owner)
    // 1,200 conversations of one 400-character message each.
    await sql`insert into conversations (id, organization_id, agent_id, agent_name, created_at, last_activity_at)
      select 'c-' || lpad(n::text, 5, '0'), ${large.organizationId}, ${largeAgent.id}, 'Bulk',
        timestamptz '2026-01-01T00:00:00Z' + make_interval(secs => n), now()
      from generate_series(1, 1200) n`.execute(stack.server.ctx.db)
    await sql`insert into chat_messages (id, conversation_id, role, content, created_at)
      select 'm-' || lpad(n::text, 5, '0'), 'c-' || lpad(n::text, 5, '0'), 'user', repeat('x', 400), now()
      from generate_series(1, 1200) n`.execute(stack.server.ctx.db)
    const created = await stack.server.request('/api/export', {
      method: 'POST',
      token: large.owner.session.token,
      json: { kind: 'conversations', format: 'ndjson' },
    })
    // 1,200 rows is above this server's limit of 1,000: the bound is checked, then a narrower one runs.
    expect(created.status).toBe(413)
    // From the 301st on: 900 conversations (two pages, and more than one piece).
    const half = await exportOf(
      { kind: 'conversations', format: 'ndjson', from: '2026-01-01T00:05:00.500Z' },
      large.owner.session.token,
    )
    expect(half.rowsDone).toBe(900)
    const row = await stack.server.ctx.db
      .selectFrom('exports')
      .select('chunks')
      .where('id', '=', half.id)
      .executeTakeFirstOrThrow()
    expect(row.chunks).toBeGreaterThan(1)
    const { text } = await download(half.id, large.owner.session.token)
    const ids = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line).id as string)
    expect(ids).toHaveLength(half.rowsDone)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toEqual([...ids].sort())
  })

  it('writes again, within a heartbeat, an export whose instance stopped beating, and leaves a live one’s', async () => {
    const db = stack.server.ctx.db
    const other = await createTeam(stack.server)
    // Two other instances: one beat a minute ago (dead), one beats on (its beat is an hour ahead).
    await db
      .insertInto('server_instances')
      .values([
        { id: 'ghost-dead', last_seen_at: new Date(Date.now() - 60_000) },
        { id: 'ghost-alive', last_seen_at: new Date(Date.now() + 3_600_000) },
      ])
      .execute()
    const runningOn = (id: string, instanceId: string, runs: number) =>
      db
        .insertInto('exports')
        .values({
          id,
          organization_id: other.organizationId,
          requested_by: other.owner.userId,
          kind: 'ledger',
          format: 'csv',
          from_at: null,
          to_at: new Date(),
          status: 'running',
          rows_total: 1,
          rows_done: 1,
          chunks: 1,
          error: null,
          created_at: new Date(),
          completed_at: null,
          expires_at: new Date(Date.now() + 60_000),
          instance_id: instanceId,
          runs,
        })
        .execute()
    // Killed mid-export: a piece written, its job still locked by the dead instance.
    await runningOn('orphaned-once', 'ghost-dead', 1)
    await db
      .insertInto('export_chunks')
      .values({ export_id: 'orphaned-once', seq: 0, data: 'half a file' })
      .execute()
    await runningOn('orphaned-thrice', 'ghost-dead', 3)
    await runningOn('still-writing', 'ghost-alive', 1)
    const statusOf = async (id: string) =>
      db
        .selectFrom('exports')
        .select(['status', 'error', 'instance_id', 'runs'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow()

    await expect
      .poll(async () => (await statusOf('orphaned-once')).status, { timeout: 10_000 })
      .toBe('completed')
    expect(await statusOf('orphaned-once')).toMatchObject({
      instance_id: stack.server.ctx.instanceId,
      runs: 2,
    })
    const { response, text } = await download('orphaned-once', other.owner.session.token)
    expect(response.status).toBe(200)
    expect(text).not.toContain('half a file')
    // The trial grant of the new organization, under the ledger's header.
    expect(parse(text, { columns: true })).toHaveLength(1)
    await expect
      .poll(async () => (await statusOf('orphaned-thrice')).status, { timeout: 10_000 })
      .toBe('failed')
    expect((await statusOf('orphaned-thrice')).error).toMatch(/cut off 3 times/)
    expect(await statusOf('still-writing')).toMatchObject({
      status: 'running',
      instance_id: 'ghost-alive',
      runs: 1,
    })

    await db.deleteFrom('exports').where('id', '=', 'still-writing').execute()
    await db.deleteFrom('server_instances').where('id', 'in', ['ghost-dead', 'ghost-alive']).execute()
  })
})
