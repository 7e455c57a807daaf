import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTeam, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server?.destroy())

type Entry = {
  action: string
  targetKind: string
  targetId: string | null
  actor: { kind: string; id: string | null }
  ip: string | null
  details: Record<string, unknown>
}
type Page = { data: Entry[]; nextCursor: string | null }

const readLog = async (key: string, query = '') => {
  const response = await server.request(`/v1/audit-log${query}`, { token: key })
  expect(response.status).toBe(200)
  return (await response.json()) as Page
}

describe('GET /v1/audit-log', () => {
  it('records each change with who, from where and what changed; another organization sees none', async () => {
    const team = await createTeam(server)
    const ownerToken = team.owner.session.token
    const key = await secretKeyFor(server, team.owner)
    const created = await server.request('/v1/agents', {
      method: 'POST',
      token: key,
      json: { name: 'Audited', agentArchitecture: 'text', model: 'gpt-4o-mini', systemPrompt: 'Hi' },
    })
    const agentId = ((await created.json()) as { data: { id: string } }).data.id
    await server.request(`/v1/agents/${agentId}`, {
      method: 'PATCH',
      token: key,
      json: { name: 'Renamed', temperature: 0.3 },
    })
    await server.request(`/v1/agents/${agentId}/webhook-secret`, { method: 'POST', token: key })
    const widget = await server.request('/api/api-keys', {
      method: 'POST',
      token: ownerToken,
      json: { name: 'Site', type: 'widget', allowedDomains: ['https://shop.example'] },
    })
    const widgetId = ((await widget.json()) as { id: string }).id
    await server.request(`/api/api-keys/${widgetId}`, {
      method: 'PATCH',
      token: ownerToken,
      json: { allowedDomains: ['https://shop.example', 'https://www.shop.example'] },
    })
    await server.request(`/api/api-keys/${widgetId}/disable`, { method: 'POST', token: ownerToken })
    await server.request(`/api/api-keys/${widgetId}/revoke`, { method: 'POST', token: ownerToken })
    const providerKey = 'sk-very-secret-provider-key-1234'
    const keysSet = await server.request(`/api/organizations/${team.organizationId}/provider-keys`, {
      method: 'PUT',
      token: ownerToken,
      json: { keys: { openai: providerKey } },
    })
    expect(keysSet.status).toBe(200)
    await server.request(`/v1/agents/${agentId}`, { method: 'DELETE', token: key })

    const { data } = await readLog(key, '?limit=100')
    const actions = data.map((entry) => entry.action)
    for (const action of [
      'agent.created',
      'agent.updated',
      'agent.webhook_secret_rotated',
      'agent.deleted',
      'key.created',
      'key.updated',
      'key.disabled',
      'key.revoked',
      'provider_keys.updated',
      'member.invited',
      'member.joined',
    ])
      expect(actions).toContain(action)
    const updated = data.find((entry) => entry.action === 'agent.updated')
    expect(updated).toMatchObject({
      targetKind: 'agent',
      targetId: agentId,
      actor: { kind: 'key' },
      ip: expect.stringMatching(/127\.0\.0\.1|::1/),
    })
    expect([...((updated?.details.fields as string[] | undefined) ?? [])].sort()).toEqual([
      'name',
      'temperature',
    ])
    expect(data.find((entry) => entry.action === 'key.revoked')).toMatchObject({
      targetId: widgetId,
      actor: { kind: 'member', id: team.owner.userId },
    })
    expect(data.find((entry) => entry.action === 'provider_keys.updated')?.details).toEqual({
      set: ['openai'],
      removed: [],
    })
    expect(JSON.stringify(data)).not.toContain(providerKey)
    // Newest first.
    expect(actions.indexOf('agent.deleted')).toBeLessThan(actions.indexOf('agent.created'))

    const filtered = await readLog(key, `?action=agent.updated&targetId=${agentId}`)
    expect(filtered.data.map((entry) => entry.action)).toEqual(['agent.updated'])
    const first = await readLog(key, '?limit=2')
    expect(first.data).toHaveLength(2)
    expect(first.nextCursor).not.toBeNull()
    const second = await readLog(key, `?limit=2&cursor=${first.nextCursor}`)
    expect(second.data[0]).toEqual(data[2])

    const stranger = await secretKeyFor(server, (await createTeam(server)).owner)
    const theirs = await readLog(stranger, '?limit=100')
    expect(theirs.data.some((entry) => entry.targetId === agentId || entry.targetId === widgetId)).toBe(false)
    expect(JSON.stringify(theirs.data)).not.toContain(team.organizationId)
  })

  it('answers 403 to a member’s key and 400 to an unknown filter', async () => {
    const team = await createTeam(server)
    const memberKey = await secretKeyFor(server, team.member)
    expect((await server.request('/v1/audit-log', { token: memberKey })).status).toBe(403)
    const adminKey = await secretKeyFor(server, team.admin)
    expect((await server.request('/v1/audit-log', { token: adminKey })).status).toBe(200)
    expect((await server.request('/v1/audit-log?who=me', { token: adminKey })).status).toBe(400)
    expect((await server.request('/v1/audit-log?action=nope', { token: adminKey })).status).toBe(400)
    expect((await server.request('/v1/audit-log?cursor=bad', { token: adminKey })).status).toBe(400)
  })

  it('exports as the export job’s audit_log kind, to owners and admins only', async () => {
    const team = await createTeam(server)
    const ownerToken = team.owner.session.token
    const refused = await server.request('/api/export', {
      method: 'POST',
      token: team.member.session.token,
      json: { kind: 'audit_log', format: 'ndjson' },
    })
    expect(refused.status).toBe(403)
    const created = await server.request('/api/export', {
      method: 'POST',
      token: ownerToken,
      json: { kind: 'audit_log', format: 'ndjson' },
    })
    expect(created.status).toBe(202)
    const { id } = (await created.json()) as { id: string }
    await expect
      .poll(
        async () =>
          (
            (await (await server.request(`/api/export/${id}`, { token: ownerToken })).json()) as {
              status: string
            }
          ).status,
        { timeout: 15_000 },
      )
      .toBe('completed')
    const text = await (await server.request(`/api/export/${id}/download`, { token: ownerToken })).text()
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string; actor_kind: string })
    // createTeam invited three people, who joined: six entries, oldest first.
    expect(lines.map((line) => line.action).slice(0, 2)).toEqual(['member.invited', 'member.joined'])
    expect(lines.every((line) => line.actor_kind === 'member')).toBe(true)
  })
})
