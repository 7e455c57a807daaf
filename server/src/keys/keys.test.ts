import type { ApiKey, Session } from '@parley/shared'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { acceptInvitations, createKey, signUp, uniqueEmail } from '../../test/helpers/accounts.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { hashKey } from './generate.ts'

let server: TestServer
let owner: Session
let other: Session
beforeAll(async () => {
  server = await startTestServer()
  owner = await signUp(server, { organizationName: 'Keys A' })
  other = await signUp(server, { organizationName: 'Keys B' })
})
afterAll(async () => {
  await server.destroy()
})

/** Joins the owner's organization with a role and returns a token whose active organization it is. */
const joinAs = async (role: 'admin' | 'member') => {
  const email = uniqueEmail(role)
  const invite = await server.request(`/api/organizations/${owner.organization.id}/members`, {
    method: 'POST',
    token: owner.token,
    json: { email, role },
  })
  expect(invite.status).toBe(201)
  const invitee = await signUp(server, { email })
  await acceptInvitations(server, invitee.token)
  const switched = await server.request('/api/auth/switch-organization', {
    method: 'POST',
    token: invitee.token,
    json: { organizationId: owner.organization.id },
  })
  return ((await switched.json()) as Session).token
}

const listKeys = async (token: string) => {
  const response = await server.request('/api/api-keys', { token })
  expect(response.status).toBe(200)
  return ((await response.json()) as { apiKeys: ApiKey[] }).apiKeys
}

describe('creating keys', () => {
  it('answers the full key once, with the spec fields; list and actions show only the prefix', async () => {
    const created = await createKey(server, owner.token, { name: 'Backend' })
    expect(created).toMatchObject({
      name: 'Backend',
      type: 'secret',
      status: 'Active',
      allowedDomains: [],
      organization: owner.organization.id,
    })
    expect(created.key).toHaveLength(64)
    expect(created.prefix.startsWith(created.key.slice(0, 8))).toBe(true)
    const { created: at, expires } = created as unknown as { created: string; expires: string }
    const days = (Date.parse(expires) - Date.parse(at)) / 86_400_000
    expect(Math.round(days)).toBe(365)

    const listed = await listKeys(owner.token)
    const disabled = await server.request(`/api/api-keys/${created.id}/disable`, {
      method: 'POST',
      token: owner.token,
    })
    const renamed = await server.request(`/api/api-keys/${created.id}`, {
      method: 'PATCH',
      token: owner.token,
      json: { name: 'Renamed' },
    })
    for (const body of [JSON.stringify(listed), await disabled.text(), await renamed.text()]) {
      expect(body).not.toContain(created.key)
      expect(body).not.toContain('"key"')
    }
    expect(listed.find((key) => key.id === created.id)?.prefix).toBe(created.prefix)
  })

  it('stores only the SHA-256 of the key', async () => {
    const created = await createKey(server, owner.token, { type: 'widget', allowedDomains: ['example.com'] })
    const rows = await sql<Record<string, unknown>>`select * from api_keys where id = ${created.id}`.execute(
      server.ctx.db,
    )
    expect(rows.rows).toHaveLength(1)
    const row = rows.rows[0] as Record<string, unknown>
    expect(row.key_hash).toBe(hashKey(created.key))
    expect(JSON.stringify(rows.rows)).not.toContain(created.key)
    expect(JSON.stringify(rows.rows)).not.toContain(created.key.slice(10))
  })

  it('widget keys take the comma-separated form and normalize the domains', async () => {
    const created = await createKey(server, owner.token, {
      type: 'widget',
      allowedDomains: 'Example.com, https://Shop.Example.com:8443 ,bücher.de,,example.com',
    })
    expect(created.key.startsWith('tk_widget_')).toBe(true)
    expect(created.allowedDomains).toEqual([
      'example.com',
      'https://shop.example.com:8443',
      'xn--bcher-kva.de',
    ])
  })

  it.each([
    [{ name: '', type: 'secret' }, 'name'],
    [{ name: 'x'.repeat(51), type: 'secret' }, 'name'],
    [{ name: 'k', type: 'public' }, 'type'],
    [{ name: 'k', type: 'secret', allowedDomains: ['example.com'] }, 'allowedDomains'],
    [{ name: 'k', type: 'widget', allowedDomains: ['exa mple.com'] }, 'allowedDomains'],
    [{ name: 'k', type: 'widget', allowedDomains: 'example.com/path' }, 'allowedDomains'],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    const response = await server.request('/api/api-keys', { method: 'POST', token: owner.token, json: body })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: string }).error).toContain(field)
  })

  it('needs a studio session', async () => {
    const response = await server.request('/api/api-keys')
    expect(response.status).toBe(401)
    expect(await response.json()).toMatchObject({ code: expect.any(String), error: expect.any(String) })
  })
})

describe('roles', () => {
  it('admins and members list keys but may not create or manage them', async () => {
    const key = await createKey(server, owner.token)
    for (const token of [await joinAs('admin'), await joinAs('member')]) {
      expect((await listKeys(token)).map((k) => k.id)).toContain(key.id)
      const attempts = [
        server.request('/api/api-keys', { method: 'POST', token, json: { name: 'x', type: 'secret' } }),
        server.request(`/api/api-keys/${key.id}`, { method: 'PATCH', token, json: { name: 'x' } }),
        ...['revoke', 'disable', 'enable'].map((action) =>
          server.request(`/api/api-keys/${key.id}/${action}`, { method: 'POST', token }),
        ),
      ]
      for (const response of await Promise.all(attempts)) {
        expect(response.status).toBe(403)
        expect(await response.json()).toMatchObject({
          code: expect.any(String),
          error: 'Only owners can create and manage API keys',
        })
      }
    }
  })
})

describe('status changes', () => {
  const act = (id: string, action: string, token = owner.token) =>
    server.request(`/api/api-keys/${id}/${action}`, { method: 'POST', token })

  it('disable is reversible; revoke is final (409 on enable, disable and edit)', async () => {
    const key = await createKey(server, owner.token)
    expect(((await (await act(key.id, 'disable')).json()) as ApiKey).status).toBe('Disabled')
    expect(((await (await act(key.id, 'enable')).json()) as ApiKey).status).toBe('Active')
    expect(((await (await act(key.id, 'revoke')).json()) as ApiKey).status).toBe('Revoked')
    expect(((await (await act(key.id, 'revoke')).json()) as ApiKey).status).toBe('Revoked')
    for (const response of [
      await act(key.id, 'enable'),
      await act(key.id, 'disable'),
      await server.request(`/api/api-keys/${key.id}`, {
        method: 'PATCH',
        token: owner.token,
        json: { name: 'back' },
      }),
    ]) {
      expect(response.status).toBe(409)
      expect(await response.json()).toMatchObject({
        code: expect.any(String),
        error: 'This API key is revoked; revoking cannot be undone',
      })
    }
  })

  it('allowedDomains can be edited on widget keys only', async () => {
    const widget = await createKey(server, owner.token, { type: 'widget', allowedDomains: ['a.com'] })
    const secret = await createKey(server, owner.token)
    const edit = (id: string) =>
      server.request(`/api/api-keys/${id}`, {
        method: 'PATCH',
        token: owner.token,
        json: { allowedDomains: 'b.com, C.com' },
      })
    expect(((await (await edit(widget.id)).json()) as ApiKey).allowedDomains).toEqual(['b.com', 'c.com'])
    expect((await edit(secret.id)).status).toBe(400)
  })
})

describe('tenant isolation', () => {
  it("another organization's key ids answer 404 to every key route, and its list is its own", async () => {
    const key = await createKey(server, owner.token)
    const attempts = [
      server.request(`/api/api-keys/${key.id}`, { method: 'PATCH', token: other.token, json: { name: 'x' } }),
      ...['revoke', 'disable', 'enable'].map((action) =>
        server.request(`/api/api-keys/${key.id}/${action}`, { method: 'POST', token: other.token }),
      ),
    ]
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(404)
      expect(await response.json()).toMatchObject({ code: expect.any(String), error: 'API key not found' })
    }
    expect((await listKeys(other.token)).map((k) => k.id)).not.toContain(key.id)
    const unchanged = (await listKeys(owner.token)).find((k) => k.id === key.id)
    expect(unchanged).toMatchObject({ name: 'Test key', status: 'Active' })
  })
})
