import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createChatSession, createTextAgent } from '../../test/helpers/chat.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import type { TestServer } from '../../test/helpers/test-server.ts'
import { startVoiceSession, startVoiceStack, type VoiceStack } from '../../test/helpers/voice.ts'
import { RETENTION_JOB, sweepRetention } from './service.ts'

let stack: VoiceStack
let server: TestServer
beforeAll(async () => {
  stack = await startVoiceStack()
  server = stack.server
})
afterAll(() => stack?.close())

const MINUTE = 60
const DAY = 24 * 60 * MINUTE

const age = async (table: 'conversations' | 'calls' | 'exports', id: string, seconds: number) => {
  const column = table === 'calls' ? 'started_at' : 'created_at'
  await sql`update ${sql.table(table)} set ${sql.ref(column)} = now() - make_interval(secs => ${seconds})
    where id = ${id}`.execute(server.ctx.db)
}
const exists = async (table: 'conversations' | 'calls' | 'exports', id: string) =>
  Boolean(await server.ctx.db.selectFrom(table).select('id').where('id', '=', id).executeTakeFirst())

const endCall = async (callId: string) => {
  const ended = await server.request(`/v1/calls/${callId}/end`, {
    method: 'POST',
    token: stack.workerToken,
    json: { reason: 'agent_ended' },
  })
  expect(ended.status).toBe(200)
}

describe('retention', () => {
  it('is set by owners and admins, not members, and audited', async () => {
    const team = await createTeam(server)
    const path = `/api/organizations/${team.organizationId}/retention`
    const initial = await server.request(path, { token: team.member.session.token })
    expect(await initial.json()).toEqual({ conversationDays: null, callDays: null, exportDays: null })
    const refused = await server.request(path, {
      method: 'PATCH',
      token: team.member.session.token,
      json: { callDays: 7 },
    })
    expect(refused.status).toBe(403)
    for (const body of [{}, { callDays: 0 }, { callDays: 1.5 }, { keepDays: 3 }])
      expect(
        (await server.request(path, { method: 'PATCH', token: team.admin.session.token, json: body })).status,
      ).toBe(400)
    const set = await server.request(path, {
      method: 'PATCH',
      token: team.admin.session.token,
      json: { callDays: 7 },
    })
    expect(await set.json()).toEqual({ conversationDays: null, callDays: 7, exportDays: null })
    const key = await secretKeyFor(server, team.owner)
    const log = await server.request('/v1/audit-log?action=organization.retention_updated', { token: key })
    const entries = ((await log.json()) as { data: Array<{ details: unknown; actor: { id: string } }> }).data
    expect(entries).toHaveLength(1)
    expect(entries[0]).toMatchObject({ details: { callDays: 7 }, actor: { id: team.admin.userId } })
  })

  it('deletes exactly the rows past the limit, in batches, each recorded in the audit log', async () => {
    const team = await createTeam(server)
    const key = await secretKeyFor(server, team.owner)
    const textAgent = await createTextAgent(server, key, 'Kept a while')
    const conversations: string[] = []
    for (let i = 0; i < 4; i++)
      conversations.push((await createChatSession(server, { key, agentId: textAgent })).conversation_id)
    const [pastA, pastB, inside, fresh] = conversations as [string, string, string, string]
    await age('conversations', pastA, 40 * DAY)
    await age('conversations', pastB, 30 * DAY + MINUTE)
    await age('conversations', inside, 30 * DAY - MINUTE)

    const voiceAgent = (await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })).id
    const oldCall = await startVoiceSession(server, { key, agentId: voiceAgent })
    const newerCall = await startVoiceSession(server, { key, agentId: voiceAgent })
    const liveCall = await startVoiceSession(server, { key, agentId: voiceAgent })
    await endCall(oldCall.callId)
    await endCall(newerCall.callId)
    await age('calls', oldCall.callId, 8 * DAY)
    await age('calls', newerCall.callId, 6 * DAY)
    await age('calls', liveCall.callId, 9 * DAY)

    // Another organization's old conversation, with no limit set, stays.
    const strangerKey = await secretKeyFor(server, (await createTeam(server)).owner)
    const strangerAgent = await createTextAgent(server, strangerKey, 'Forever')
    const theirs = (await createChatSession(server, { key: strangerKey, agentId: strangerAgent }))
      .conversation_id
    await age('conversations', theirs, 400 * DAY)

    const patched = await server.request(`/api/organizations/${team.organizationId}/retention`, {
      method: 'PATCH',
      token: team.owner.session.token,
      json: { conversationDays: 30, callDays: 7 },
    })
    expect(patched.status).toBe(200)

    const report = await sweepRetention(server.ctx, { batch: 1 })
    expect(report.find((row) => row.organizationId === team.organizationId)).toEqual({
      organizationId: team.organizationId,
      conversations: 2,
      calls: 1,
      exports: 0,
    })
    expect(await exists('conversations', pastA)).toBe(false)
    expect(await exists('conversations', pastB)).toBe(false)
    expect(await exists('conversations', inside)).toBe(true)
    expect(await exists('conversations', fresh)).toBe(true)
    expect(await exists('calls', oldCall.callId)).toBe(false)
    expect(await exists('calls', newerCall.callId)).toBe(true)
    expect(await exists('calls', liveCall.callId)).toBe(true)
    expect(await exists('conversations', theirs)).toBe(true)
    const transcript = await server.ctx.db
      .selectFrom('call_transcript_lines')
      .select('id')
      .where('call_id', '=', oldCall.callId)
      .execute()
    expect(transcript).toEqual([])

    const log = await server.request('/v1/audit-log?action=retention.deleted', { token: key })
    const entries = (
      (await log.json()) as {
        data: Array<{ targetKind: string; actor: unknown; details: { count: number } }>
      }
    ).data
    // A batch of one row per transaction: two conversation batches and one call batch.
    expect(entries.map((entry) => entry.targetKind).sort()).toEqual([
      'calls',
      'conversations',
      'conversations',
    ])
    expect(entries.every((entry) => entry.details.count === 1)).toBe(true)
    expect(entries[0]?.actor).toEqual({ kind: 'system', id: null })

    // Nothing more to delete: a second sweep finds nothing of this organization.
    const again = await sweepRetention(server.ctx)
    expect(again.find((row) => row.organizationId === team.organizationId)).toBeUndefined()
    const scheduled = await sql<{
      name: string
    }>`select name from agenda_jobs where name = ${RETENTION_JOB}`.execute(server.ctx.db)
    expect(scheduled.rows).toHaveLength(1)
  })
})
