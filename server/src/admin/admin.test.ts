import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signUp } from '../../test/helpers/accounts.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ env: { TRIAL_CREDITS_USD: '2.5' } })
})
afterAll(async () => {
  await server.destroy()
})

const admin = (path: string, init: { method?: string; json?: unknown } = {}) =>
  server.request(path, { ...init, token: server.config.adminToken })

describe('operator API', () => {
  it('requires the operator token', async () => {
    expect((await server.request('/admin/organizations')).status).toBe(401)
    const owner = await signUp(server)
    expect((await server.request('/admin/organizations', { token: owner.token })).status).toBe(401)
  })

  it('lists organizations with tier, limit and balance', async () => {
    const owner = await signUp(server, { organizationName: 'Listed Co' })
    const response = await admin('/admin/organizations')
    expect(response.status).toBe(200)
    const { success, data } = await response.json()
    expect(success).toBe(true)
    expect(data.find((org: { id: string }) => org.id === owner.organization.id)).toMatchObject({
      name: 'Listed Co',
      tier: 'free',
      rateLimitPerMinute: 60,
      creditBalanceUsd: 2.5,
    })
  })

  it('changes tier and custom limit, validating both', async () => {
    const { organization } = await signUp(server)
    const pro = await admin(`/admin/organizations/${organization.id}`, {
      method: 'PATCH',
      json: { tier: 'pro' },
    })
    expect(await pro.json()).toMatchObject({ success: true, data: { tier: 'pro', rateLimitPerMinute: 300 } })
    const custom = await admin(`/admin/organizations/${organization.id}`, {
      method: 'PATCH',
      json: { tier: 'enterprise', rateLimitPerMinute: 5000 },
    })
    expect(await custom.json()).toMatchObject({ data: { tier: 'enterprise', rateLimitPerMinute: 5000 } })
    const reset = await admin(`/admin/organizations/${organization.id}`, {
      method: 'PATCH',
      json: { rateLimitPerMinute: null },
    })
    expect(await reset.json()).toMatchObject({ data: { tier: 'enterprise', rateLimitPerMinute: 1000 } })

    for (const json of [{}, { tier: 'gold' }, { rateLimitPerMinute: 0 }, { rateLimitPerMinute: 1.5 }]) {
      const bad = await admin(`/admin/organizations/${organization.id}`, { method: 'PATCH', json })
      expect(bad.status).toBe(400)
      expect(await bad.json()).toMatchObject({ success: false, code: 'validation_error' })
    }
    expect(
      (await admin('/admin/organizations/unknown', { method: 'PATCH', json: { tier: 'pro' } })).status,
    ).toBe(404)
  })

  it('grants and corrects credits through the ledger, never below zero', async () => {
    const { organization } = await signUp(server)
    const grant = await admin(`/admin/organizations/${organization.id}/credits`, {
      method: 'POST',
      json: { amountUsd: 10.123456, reason: 'Pilot customer' },
    })
    expect(grant.status).toBe(201)
    expect(await grant.json()).toMatchObject({
      success: true,
      data: {
        entry: { amountUsd: 10.123456, kind: 'grant', reason: 'Pilot customer' },
        organization: { creditBalanceUsd: 12.623456 },
      },
    })

    const overdraw = await admin(`/admin/organizations/${organization.id}/credits`, {
      method: 'POST',
      json: { amountUsd: -100, reason: 'Too much' },
    })
    expect(overdraw.status).toBe(402)
    expect(await overdraw.json()).toMatchObject({ success: false, code: 'insufficient_credits' })

    const correction = await admin(`/admin/organizations/${organization.id}/credits`, {
      method: 'POST',
      json: { amountUsd: -0.123456, reason: 'Typo' },
    })
    expect(await correction.json()).toMatchObject({
      data: { entry: { kind: 'correction' }, organization: { creditBalanceUsd: 12.5 } },
    })

    for (const json of [
      { amountUsd: 0, reason: 'x' },
      { amountUsd: 1.0000001, reason: 'x' },
      { amountUsd: 5 },
      { amountUsd: '5', reason: 'x' },
    ]) {
      expect(
        (await admin(`/admin/organizations/${organization.id}/credits`, { method: 'POST', json })).status,
      ).toBe(400)
    }

    const ledger = await (await admin(`/admin/organizations/${organization.id}/ledger`)).json()
    expect(ledger.data.map((entry: { kind: string }) => entry.kind)).toEqual(['correction', 'grant', 'trial'])
  })
})
