import type { OrganizationLedger } from '@parley/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signUp } from '../../test/helpers/accounts.ts'
import { createTeam } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { changeBalance } from '../billing/service.ts'

/**
 * The studio's view of the credit ledger (GET /api/organizations/{orgId}/ledger): owners and
 * admins read it a page at a time, newest first; a member is refused in the studio's words;
 * another organization's id is a 404.
 */
let server: TestServer
let team: Awaited<ReturnType<typeof createTeam>>
beforeAll(async () => {
  server = await startTestServer({ env: { TRIAL_CREDITS_USD: '5' } })
  team = await createTeam(server)
})
afterAll(async () => {
  await server.destroy()
})

const ledgerOf = (organizationId: string, token: string, query = '') =>
  server.request(`/api/organizations/${organizationId}/ledger${query}`, { token })

const readAll = async (organizationId: string, token: string, limit: number) => {
  const entries: OrganizationLedger['entries'] = []
  let cursor: string | null = null
  for (let pages = 0; pages < 50; pages++) {
    const query: string = `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`
    const response = await ledgerOf(organizationId, token, query)
    expect(response.status).toBe(200)
    const page = (await response.json()) as OrganizationLedger
    expect(page.entries.length).toBeLessThanOrEqual(limit)
    entries.push(...page.entries)
    cursor = page.nextCursor
    if (!cursor) return entries
  }
  throw new Error('the ledger never ended')
}

describe('the organization ledger in the studio', () => {
  it('shows the owner the balance and the trial credit entry', async () => {
    const owner = await signUp(server)
    const response = await ledgerOf(owner.organization.id, owner.token)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      balanceUsd: 5,
      entries: [
        {
          id: expect.any(String),
          amountUsd: 5,
          balanceAfterUsd: 5,
          kind: 'trial',
          reason: 'Trial credits on signup',
          createdAt: expect.any(String),
        },
      ],
      nextCursor: null,
    })
  })

  it('pages newest first without repeating or skipping entries made in the same microsecond', async () => {
    const owner = await signUp(server)
    const organizationId = owner.organization.id
    for (const amountMicros of [1_000_000, -250_000, 2_000_000])
      await changeBalance(server.ctx, {
        organizationId,
        amountMicros,
        kind: 'grant',
        reason: `+${amountMicros}`,
      })
    // Three entries written at one instant: the id orders them within it.
    const instant = new Date(Date.now() + 1000) // after the entries above, whatever the clocks round to
    await server.ctx.db
      .insertInto('credit_ledger')
      .values(
        ['A', 'B', 'C'].map((letter) => ({
          id: `ZZZZZZZZZZZZZZZZZZZZZZZZZ${letter}`,
          organization_id: organizationId,
          amount_micros: 1,
          balance_after_micros: 7_750_000,
          kind: 'correction',
          reason: `same instant ${letter}`,
          created_at: instant,
        })),
      )
      .execute()

    const entries = await readAll(organizationId, owner.token, 2)
    expect(entries.map((entry) => entry.reason)).toEqual([
      'same instant C',
      'same instant B',
      'same instant A',
      '+2000000',
      '+-250000',
      '+1000000',
      'Trial credits on signup',
    ])
    expect(entries[3]).toMatchObject({ amountUsd: 2, balanceAfterUsd: 7.75, kind: 'grant' })
    expect(entries[4]).toMatchObject({ amountUsd: -0.25, balanceAfterUsd: 5.75 })
    const first = (await (
      await ledgerOf(organizationId, owner.token, '?limit=1')
    ).json()) as OrganizationLedger
    expect(first.balanceUsd).toBe(7.75)
  })

  it('lets admins read and refuses members in the studio error shape', async () => {
    const forAdmin = await ledgerOf(team.organizationId, team.admin.session.token)
    expect(forAdmin.status).toBe(200)
    expect(((await forAdmin.json()) as OrganizationLedger).entries.map((entry) => entry.kind)).toEqual([
      'trial',
    ])

    const forMember = await ledgerOf(team.organizationId, team.member.session.token)
    expect(forMember.status).toBe(403)
    expect(await forMember.json()).toEqual({
      error: 'Only owners and admins can read the credit ledger',
      code: 'forbidden',
    })
  })

  it('answers 404 for an organization the caller does not belong to, and 401 without a session', async () => {
    const stranger = await signUp(server)
    const response = await ledgerOf(team.organizationId, stranger.token)
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ error: expect.any(String), code: 'not_found' })
    expect((await ledgerOf('no-such-organization', team.owner.session.token)).status).toBe(404)
    expect((await server.request(`/api/organizations/${team.organizationId}/ledger`)).status).toBe(401)
  })

  it('refuses a cursor it did not give, a limit out of range and an unknown query field', async () => {
    const token = team.owner.session.token
    for (const query of ['?cursor=not-a-cursor', '?limit=0', '?limit=101', '?page=2']) {
      const response = await ledgerOf(team.organizationId, token, query)
      expect(response.status, query).toBe(400)
      expect(await response.json(), query).toMatchObject({
        error: expect.any(String),
        code: expect.any(String),
      })
    }
  })
})
