import type { Session } from '@parley/shared'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey, signUp } from './helpers/accounts.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

let server: TestServer
let owner: Session
beforeAll(async () => {
  server = await startTestServer({ env: { TRIAL_CREDITS_USD: '5' } })
  owner = await signUp(server, { organizationName: 'Key Org' })
})
afterAll(async () => {
  await server.destroy()
})

const organization = (headers: Record<string, string> = {}) => server.request('/v1/organization', { headers })

const expectInvalidKey = async (response: Response, message?: string) => {
  expect(response.status).toBe(401)
  const body = await response.json()
  expect(body).toEqual({ success: false, error: message ?? expect.any(String), code: 'invalid_api_key' })
}

describe('GET /v1/organization with an API key', () => {
  it('accepts Authorization: Bearer and X-API-Key and answers the organization summary', async () => {
    const { key } = await createKey(server, owner.token)
    const forms: Record<string, string>[] = [{ authorization: `Bearer ${key}` }, { 'x-api-key': key }]
    for (const headers of forms) {
      const response = await organization(headers)
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({
        success: true,
        data: {
          id: owner.organization.id,
          name: 'Key Org',
          tier: 'free',
          rateLimitPerMinute: 60,
          creditBalanceUsd: 5,
        },
      })
    }
  })

  it('refuses a missing, unknown or malformed key with 401 invalid_api_key', async () => {
    await expectInvalidKey(await organization())
    await expectInvalidKey(await organization({ 'x-api-key': 'A'.repeat(64) }), 'Invalid API key')
    await expectInvalidKey(
      await organization({ authorization: `Bearer ${'A'.repeat(64)}` }),
      'Invalid API key',
    )
    await expectInvalidKey(await organization({ authorization: 'Basic abc' }))
    await expectInvalidKey(await organization({ 'x-api-key': 'x'.repeat(5000) }), 'Invalid API key')
  })

  it('tells a studio JWT from a key by form: a studio session acts as its member, a JWT beside a key is refused', async () => {
    const response = await organization({ authorization: `Bearer ${owner.token}` })
    expect(response.status).toBe(200)
    expect((await response.json()).data.id).toBe(owner.organization.id)
    const { key } = await createKey(server, owner.token)
    await expectInvalidKey(
      await organization({ authorization: `Bearer ${owner.token}`, 'x-api-key': key }),
      'Session tokens are not accepted here; send an API key',
    )
    const forged = `${owner.token.slice(0, -4)}AAAA`
    expect((await organization({ authorization: `Bearer ${forged}` })).status).toBe(401)
  })

  it('refuses two different keys in the two headers', async () => {
    const a = await createKey(server, owner.token)
    const b = await createKey(server, owner.token)
    await expectInvalidKey(await organization({ authorization: `Bearer ${a.key}`, 'x-api-key': b.key }))
    expect((await organization({ authorization: `Bearer ${a.key}`, 'x-api-key': a.key })).status).toBe(200)
  })

  it('refuses widget keys on v1 with 403, even from an allowed origin', async () => {
    const widget = await createKey(server, owner.token, { type: 'widget', allowedDomains: ['example.com'] })
    const response = await organization({ 'x-api-key': widget.key, origin: 'https://example.com' })
    expect(response.status).toBe(403)
    expect(await response.json()).toMatchObject({ success: false, code: 'forbidden' })
  })

  it('refuses disabled (until enabled), revoked and expired keys, at once despite the cache', async () => {
    const { id, key } = await createKey(server, owner.token)
    const headers = { 'x-api-key': key }
    expect((await organization(headers)).status).toBe(200)
    const act = (action: string) =>
      server.request(`/api/api-keys/${id}/${action}`, { method: 'POST', token: owner.token })
    await act('disable')
    await expectInvalidKey(await organization(headers), 'This API key is disabled')
    await act('enable')
    expect((await organization(headers)).status).toBe(200)
    await act('revoke')
    await expectInvalidKey(await organization(headers), 'This API key was revoked')

    const expiring = await createKey(server, owner.token)
    await sql`update api_keys set expires_at = now() - interval '1 second' where id = ${expiring.id}`.execute(
      server.ctx.db,
    )
    await expectInvalidKey(await organization({ 'x-api-key': expiring.key }), 'This API key has expired')
  })

  it("scopes the answer to the key's organization (tenant isolation)", async () => {
    const other = await signUp(server, { organizationName: 'Other Org' })
    const mine = await createKey(server, owner.token)
    const theirs = await createKey(server, other.token)
    const a = (await (await organization({ 'x-api-key': mine.key })).json()) as { data: { id: string } }
    const b = (await (await organization({ 'x-api-key': theirs.key })).json()) as { data: { id: string } }
    expect(a.data.id).toBe(owner.organization.id)
    expect(b.data.id).toBe(other.organization.id)
  })
})

describe('OpenAPI', () => {
  it('documents the key routes, /v1/organization and the API-key security schemes', async () => {
    const document = (await (await server.request('/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { security?: unknown[] }>>
      components: { securitySchemes: Record<string, unknown> }
    }
    for (const path of [
      '/api/api-keys',
      '/api/api-keys/{id}',
      '/api/api-keys/{id}/revoke',
      '/api/api-keys/{id}/disable',
      '/api/api-keys/{id}/enable',
    ]) {
      expect(document.paths[path]).toBeDefined()
    }
    expect(document.paths['/v1/organization']?.get?.security).toEqual([
      { secretKeyBearer: [] },
      { secretKeyHeader: [] },
      { studioSession: [] },
    ])
    expect(Object.keys(document.components.securitySchemes)).toEqual(
      expect.arrayContaining(['secretKeyBearer', 'secretKeyHeader', 'widgetKey']),
    )
  })
})
