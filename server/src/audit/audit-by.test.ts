import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createChatSession, createTextAgent } from '../../test/helpers/chat.ts'
import { createTeam, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { RETENTION_JOB } from '../retention/index.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server?.destroy())

type Entry = { action: string; actor: { kind: string; id: string | null }; ip: string | null }

describe('who the audit log names', () => {
  it('names the member and address of a request, and the system with no address for a job', async () => {
    const team = await createTeam(server)
    const key = await secretKeyFor(server, team.owner)
    const agentId = await createTextAgent(server, key, 'Short memory')
    const { conversation_id: conversationId } = await createChatSession(server, { key, agentId })
    await sql`update conversations set created_at = now() - interval '2 days'
      where id = ${conversationId}`.execute(server.ctx.db)
    const patched = await server.request(`/api/organizations/${team.organizationId}/retention`, {
      method: 'PATCH',
      token: team.owner.session.token,
      json: { conversationDays: 1 },
    })
    expect(patched.status).toBe(200)

    // The sweep runs as a job, after (and apart from) the request that set the limit.
    await server.ctx.jobs.now(RETENTION_JOB, {})
    const entriesOf = async (action: string) => {
      const response = await server.request(`/v1/audit-log?action=${action}`, { token: key })
      return ((await response.json()) as { data: Entry[] }).data
    }
    await expect.poll(() => entriesOf('retention.deleted'), { timeout: 15_000 }).toHaveLength(1)

    expect((await entriesOf('retention.deleted'))[0]).toMatchObject({
      actor: { kind: 'system', id: null },
      ip: null,
    })
    expect((await entriesOf('organization.retention_updated'))[0]).toMatchObject({
      actor: { kind: 'member', id: team.owner.userId },
      ip: expect.stringMatching(/127\.0\.0\.1|::1/),
    })
  })
})
