import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTeam, createTeamWithKeys, makeAgent, type TeamKeys } from '../../test/helpers/organization.ts'
import { privateIpv6 } from '../../test/helpers/special-addresses.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

const ALLOWED_HOST = 'functions.example.test'
let server: TestServer
let team: Awaited<ReturnType<typeof createTeam>>
let keys: TeamKeys
beforeAll(async () => {
  server = await startTestServer({ env: { OUTBOUND_ALLOW_HOSTS: ALLOWED_HOST } })
  ;({ team, keys } = await createTeamWithKeys(server))
})
afterAll(async () => {
  await server.destroy()
})

const api = (path: string, init: { method?: string; json?: unknown; key?: string } = {}) =>
  server.request(path, { method: init.method ?? 'GET', json: init.json, token: init.key ?? keys.owner })

const lookupOrder = {
  name: 'lookup_order',
  label: 'Look up an order',
  description: 'Finds an order by its number',
  endpoint: `https://${ALLOWED_HOST}/orders`,
  headers: { Authorization: 'Bearer customer-secret-9876' },
  parameters: {
    type: 'object',
    properties: {
      orderNumber: { type: 'string', description: 'The order number' },
      verbose: { type: 'boolean', default: false },
    },
    required: ['orderNumber'],
  },
}

const createFn = (agentId: string, json: Record<string, unknown> = lookupOrder, key = keys.owner) =>
  api(`/api/custom-functions/${agentId}`, { method: 'POST', json, key })

describe('custom functions', () => {
  it('create, read, update and delete, with headers masked and stored encrypted', async () => {
    const agent = await makeAgent(server, team.owner)
    const created = await createFn(agent.id)
    expect(created.status).toBe(201)
    const fn = await created.json()
    expect(fn).toMatchObject({
      id: expect.any(String),
      name: 'lookup_order',
      label: 'Look up an order',
      method: 'POST',
      agentId: agent.id,
      headers: { Authorization: '••••••••9876' },
      parameters: lookupOrder.parameters,
    })
    const stored = await sql<{
      headers_box: string
    }>`select headers_box from custom_functions where id = ${fn.id}`.execute(server.ctx.db)
    expect(stored.rows[0]?.headers_box).not.toContain('customer-secret')

    const listed = await (await api(`/api/custom-functions?agentId=${agent.id}`)).json()
    expect(listed.functions).toHaveLength(1)
    expect(listed.functions[0]).toMatchObject({ id: fn.id, endpoint: lookupOrder.endpoint })

    const updated = await api(`/api/custom-functions/${agent.id}`, {
      method: 'PUT',
      json: { id: fn.id, method: 'GET', label: 'Find order' },
    })
    expect(updated.status).toBe(200)
    expect(await updated.json()).toMatchObject({
      id: fn.id,
      method: 'GET',
      label: 'Find order',
      name: 'lookup_order',
    })

    await sql`update agents set enabled_custom_functions = ${JSON.stringify([fn.id])}::jsonb where id = ${agent.id}`.execute(
      server.ctx.db,
    )
    const deleted = await api(`/api/custom-functions/${agent.id}?functionId=${fn.id}`, { method: 'DELETE' })
    expect(deleted.status).toBe(200)
    expect(await deleted.json()).toEqual({ success: true })
    const row = await sql<{
      enabled_custom_functions: string[]
    }>`select enabled_custom_functions from agents where id = ${agent.id}`.execute(server.ctx.db)
    expect(row.rows[0]?.enabled_custom_functions).toEqual([])
    expect(
      (await api(`/api/custom-functions/${agent.id}?functionId=${fn.id}`, { method: 'DELETE' })).status,
    ).toBe(404)
  })

  it('keeps names snake_case and unique per agent', async () => {
    const agent = await makeAgent(server, team.owner)
    expect((await createFn(agent.id)).status).toBe(201)
    const duplicate = await createFn(agent.id)
    expect(duplicate.status).toBe(409)
    for (const name of ['LookupOrder', 'lookup-order', '1lookup', '']) {
      const response = await createFn(agent.id, { ...lookupOrder, name })
      expect({ name, status: response.status }).toEqual({ name, status: 400 })
    }
  })

  it('refuses parameters that are not an object JSON Schema with the allowed property types', async () => {
    const agent = await makeAgent(server, team.owner)
    for (const parameters of [
      { type: 'array', items: {} },
      { type: 'object', properties: { when: { type: 'date' } } },
      { type: 'object', properties: { n: { type: 'integer' } } },
      { type: 'object', properties: { x: { type: 'string' } }, required: 'x' },
    ]) {
      const response = await createFn(agent.id, { ...lookupOrder, parameters })
      expect({ parameters, status: response.status }).toEqual({ parameters, status: 400 })
      expect((await response.json()).error).toMatch(/^parameters: /)
    }
  })

  it.each([
    'http://api.example.com/orders',
    'https://127.0.0.1/orders',
    'https://10.0.0.1/orders',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/orders',
    'https://localhost/orders',
  ])('refuses the endpoint %s at save time', async (endpoint) => {
    const agent = await makeAgent(server, team.owner)
    const response = await createFn(agent.id, { ...lookupOrder, endpoint })
    expect(response.status).toBe(400)
    expect((await response.json()).error).toMatch(/^endpoint/)
  })

  it('refuses an endpoint in every special-purpose IPv6 block at save time, [::127.0.0.1] first', async () => {
    const agent = await makeAgent(server, team.owner)
    const accepted: string[] = []
    for (const [address] of privateIpv6) {
      const response = await createFn(agent.id, { ...lookupOrder, endpoint: `https://[${address}]:8443/x` })
      if (response.status !== 400 || !/^endpoint/.test((await response.json()).error)) accepted.push(address)
    }
    expect(accepted).toEqual([])
  })

  describe('permissions', () => {
    // Agents created by `member`; owners/admins manage all, members only view their own agents' functions.
    it.each([
      ['owner', { view: 200, create: 201 }],
      ['admin', { view: 200, create: 201 }],
      ['member', { view: 200, create: 403 }],
      ['otherMember', { view: 404, create: 403 }],
    ] as const)('%s', async (actor, expected) => {
      const agent = await makeAgent(server, team.member, { mode: 'public' })
      const seeded = await (
        await createFn(agent.id, { ...lookupOrder, name: `seed_${actor.toLowerCase()}` })
      ).json()
      const view = await api(`/api/custom-functions?agentId=${agent.id}`, { key: keys[actor] })
      expect(view.status).toBe(expected.view)
      const create = await createFn(
        agent.id,
        { ...lookupOrder, name: `by_${actor.toLowerCase()}` },
        keys[actor],
      )
      expect(create.status).toBe(expected.create)
      const manage = expected.create === 201 ? 200 : 403
      const update = await api(`/api/custom-functions/${agent.id}`, {
        method: 'PUT',
        json: { id: seeded.id, label: 'x' },
        key: keys[actor],
      })
      expect(update.status).toBe(manage)
      const remove = await api(`/api/custom-functions/${agent.id}?functionId=${seeded.id}`, {
        method: 'DELETE',
        key: keys[actor],
      })
      expect(remove.status).toBe(manage)
    })

    it('lists by organization with the role, and all of the user’s agents without a query', async () => {
      const mine = await makeAgent(server, team.member, { mode: 'public', name: 'Member Bot' })
      await createFn(mine.id, { ...lookupOrder, name: 'member_fn' })
      const byOrg = await (
        await api(`/api/custom-functions?organizationId=${team.organizationId}`, { key: keys.member })
      ).json()
      expect(byOrg.role).toBe('member')
      expect(byOrg.functions.every((f: { agent: { id: string } }) => f.agent.id !== undefined)).toBe(true)
      expect(Object.keys(byOrg.functions[0]).sort()).toEqual(['agent', 'id', 'name'])
      const all = await (await api('/api/custom-functions', { key: keys.member })).json()
      expect(all.functions.find((f: { name: string }) => f.name === 'member_fn')).toMatchObject({
        label: 'Look up an order',
        endpoint: lookupOrder.endpoint,
        agent: { id: mine.id, name: 'Member Bot', organizationId: team.organizationId },
      })
      const other = await (await api('/api/custom-functions', { key: keys.otherMember })).json()
      expect(other.functions.find((f: { name: string }) => f.name === 'member_fn')).toBeUndefined()
    })

    it("answers 404 for another organization's agent or function", async () => {
      const other = await createTeam(server)
      const foreign = await makeAgent(server, other.owner, { mode: 'public' })
      expect((await createFn(foreign.id)).status).toBe(404)
      expect((await api(`/api/custom-functions?agentId=${foreign.id}`)).status).toBe(404)
      expect((await api(`/api/custom-functions?organizationId=${other.organizationId}`)).status).toBe(404)
    })
  })
})
