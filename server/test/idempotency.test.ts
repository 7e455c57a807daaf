import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { purgeExpired } from '../src/idempotency/store.ts'
import { signUp } from './helpers/accounts.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/**
 * The middleware is adopted first by the operator's credit grant (a creating POST whose retry
 * must not pay twice); the v1, batch and custom-function creators adopt it as they land.
 */
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ env: { TRIAL_CREDITS_USD: '5' } })
})
afterAll(async () => {
  await server.destroy()
})

const grant = (organizationId: string, body: object, key?: string) =>
  server.request(`/admin/organizations/${organizationId}/credits`, {
    method: 'POST',
    token: server.config.adminToken,
    json: body,
    headers: key === undefined ? {} : { 'idempotency-key': key },
  })

const countRows = async (organizationId: string, key: string) => {
  const ledger = await sql<{ n: number }>`
    select count(*)::int as n from credit_ledger where organization_id = ${organizationId} and kind = 'grant'`.execute(
    server.ctx.db,
  )
  const keys = await sql<{ n: number }>`
    select count(*)::int as n from idempotency_keys where organization_id = ${organizationId} and key = ${key}`.execute(
    server.ctx.db,
  )
  return { grants: ledger.rows[0]?.n, keys: keys.rows[0]?.n }
}

const newOrganization = async () => (await signUp(server)).organization.id
const newKey = () => `grant-${randomBytes(6).toString('hex')}`

describe('Idempotency-Key on a creating POST', () => {
  it('replays the first response, status and body, and does the work once', async () => {
    const org = await newOrganization()
    const key = newKey()
    const first = await grant(org, { amountUsd: 2, reason: 'top-up' }, key)
    expect(first.status).toBe(201)
    const firstText = await first.text()
    const again = await grant(org, { reason: 'top-up', amountUsd: 2 }, key)
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(await again.text()).toBe(firstText)
    expect(await countRows(org, key)).toEqual({ grants: 1, keys: 1 })
  })

  it('answers 409 to the same key with another body', async () => {
    const org = await newOrganization()
    const key = newKey()
    expect((await grant(org, { amountUsd: 1, reason: 'a' }, key)).status).toBe(201)
    const other = await grant(org, { amountUsd: 100, reason: 'a' }, key)
    expect(other.status).toBe(409)
    expect(await other.json()).toEqual({
      success: false,
      error: 'This Idempotency-Key was already used with a different request; use a new key',
      code: 'conflict',
    })
    expect(await countRows(org, key)).toEqual({ grants: 1, keys: 1 })
  })

  it('runs two (and more) concurrent requests with one key once; all get the same answer', async () => {
    const org = await newOrganization()
    const key = newKey()
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => grant(org, { amountUsd: 3, reason: 'concurrent' }, key)),
    )
    const bodies = await Promise.all(responses.map((response) => response.text()))
    expect(responses.map((response) => response.status)).toEqual([201, 201, 201, 201, 201])
    expect(new Set(bodies).size).toBe(1)
    expect(await countRows(org, key)).toEqual({ grants: 1, keys: 1 })
  })

  it('scopes keys per organization', async () => {
    const [orgA, orgB] = [await newOrganization(), await newOrganization()]
    const key = newKey()
    expect((await grant(orgA, { amountUsd: 1, reason: 'x' }, key)).status).toBe(201)
    const b = await grant(orgB, { amountUsd: 1, reason: 'x' }, key)
    expect(b.status).toBe(201)
    expect(b.headers.get('idempotent-replayed')).toBeNull()
    expect(await countRows(orgB, key)).toEqual({ grants: 1, keys: 1 })
  })

  it('keeps only successes: after an error the same key may run again', async () => {
    const org = await newOrganization()
    const key = newKey()
    const refused = await grant(org, { amountUsd: -1000, reason: 'too much' }, key)
    expect(refused.status).toBeGreaterThanOrEqual(400)
    expect((await countRows(org, key)).keys).toBe(0)
    expect((await grant(org, { amountUsd: 1, reason: 'fixed' }, key)).status).toBe(201)
  })

  it('without the header every request runs; a malformed key answers 400', async () => {
    const org = await newOrganization()
    await grant(org, { amountUsd: 1, reason: 'plain' })
    await grant(org, { amountUsd: 1, reason: 'plain' })
    expect((await countRows(org, 'none')).grants).toBe(2)
    const bad = await grant(org, { amountUsd: 1, reason: 'x' }, 'has space')
    expect(bad.status).toBe(400)
  })

  it('frees a key after its 24 h: it runs again, and housekeeping purges expired rows', async () => {
    const org = await newOrganization()
    const [key, other] = [newKey(), newKey()]
    expect((await grant(org, { amountUsd: 1, reason: 'day one' }, key)).status).toBe(201)
    expect((await grant(org, { amountUsd: 1, reason: 'day one' }, other)).status).toBe(201)
    await sql`update idempotency_keys set expires_at = now() - interval '1 second' where organization_id = ${org}`.execute(
      server.ctx.db,
    )
    const later = await grant(org, { amountUsd: 1, reason: 'day one' }, key)
    expect(later.status).toBe(201)
    expect(later.headers.get('idempotent-replayed')).toBeNull()
    expect(await purgeExpired(server.ctx.db)).toBeGreaterThanOrEqual(1)
    expect(await countRows(org, other)).toEqual({ grants: 3, keys: 0 })
    expect((await countRows(org, key)).keys).toBe(1)
  })

  it('is documented on the route in OpenAPI', async () => {
    const document = (await (await server.request('/v1/openapi.json')).json()) as {
      paths: Record<string, { post?: { parameters?: { name: string; in: string }[] } }>
    }
    const parameters = document.paths['/admin/organizations/{id}/credits']?.post?.parameters ?? []
    expect(parameters).toContainEqual(expect.objectContaining({ name: 'idempotency-key', in: 'header' }))
  })
})
