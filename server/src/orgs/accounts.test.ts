import type { Session } from '@parley/shared'
import jwt from 'jsonwebtoken'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { logIn, PASSWORD, signUp, uniqueEmail } from '../../test/helpers/accounts.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ env: { TRIAL_CREDITS_USD: '5' } })
})
afterAll(async () => {
  await server.destroy()
})

const balanceOf = async (organizationId: string) => {
  const response = await server.request('/admin/organizations', { token: server.config.adminToken })
  const { data } = (await response.json()) as { data: { id: string; creditBalanceUsd: number }[] }
  return data.find((org) => org.id === organizationId)?.creditBalanceUsd
}

describe('signup', () => {
  it('creates the user, an owned organization with trial credits, and a working token', async () => {
    const email = uniqueEmail('Owner')
    const session = await signUp(server, { email: email.toUpperCase(), organizationName: 'Bright Co' })
    expect(session.user.email).toBe(email.toLowerCase())
    expect(session.organization).toMatchObject({ name: 'Bright Co', role: 'owner', tier: 'free' })
    expect(session.organizations).toHaveLength(1)
    expect(JSON.stringify(session)).not.toContain(PASSWORD)
    expect(await balanceOf(session.organization.id)).toBe(5)

    const me = await server.request('/api/auth/session', { token: session.token })
    expect(me.status).toBe(200)
    expect(await me.json()).toMatchObject({
      user: { id: session.user.id },
      organization: { id: session.organization.id },
    })
  })

  it('refuses a duplicate email (any case) with 400 and creates nothing', async () => {
    const email = uniqueEmail()
    await signUp(server, { email })
    const before = (
      (await (await server.request('/admin/organizations', { token: server.config.adminToken })).json()) as {
        data: unknown[]
      }
    ).data.length
    const response = await server.request('/api/auth/signup', {
      method: 'POST',
      json: { organizationName: 'Dupe', name: 'Dupe', email: email.toUpperCase(), password: PASSWORD },
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({
      code: expect.any(String),
      error: 'An account with this email already exists',
    })
    const after = (
      (await (await server.request('/admin/organizations', { token: server.config.adminToken })).json()) as {
        data: unknown[]
      }
    ).data.length
    expect(after).toBe(before)
  })

  it('validates every field before any work', async () => {
    for (const body of [
      {},
      { organizationName: 'A', name: 'x', email: uniqueEmail(), password: PASSWORD },
      { organizationName: 'Acme', name: 'x', email: 'not-an-email', password: PASSWORD },
      { organizationName: 'Acme', name: 'x', email: uniqueEmail(), password: 'short' },
    ]) {
      const response = await server.request('/api/auth/signup', { method: 'POST', json: body })
      expect(response.status).toBe(400)
      expect(Object.keys(await response.json())).toEqual(['error', 'code', 'issues'])
    }
  })
})

describe('login', () => {
  let owner: Session
  beforeAll(async () => {
    owner = await signUp(server)
  })

  it('logs in with the right password', async () => {
    const session = await logIn(server, owner.user.email)
    expect(session.organization.id).toBe(owner.organization.id)
    expect(session.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)
  })

  it('answers a wrong password and an unknown email identically with 401', async () => {
    const wrong = await server.request('/api/auth/login', {
      method: 'POST',
      json: { email: owner.user.email, password: 'not the password' },
    })
    const unknown = await server.request('/api/auth/login', {
      method: 'POST',
      json: { email: uniqueEmail(), password: 'not the password' },
    })
    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(401)
    const wrongBody = await wrong.json()
    expect(wrongBody).toEqual(await unknown.json())
    expect(wrongBody).toMatchObject({ code: expect.any(String), error: 'Email or password is incorrect' })
  })
})

describe('studio tokens', () => {
  let owner: Session
  beforeAll(async () => {
    owner = await signUp(server)
  })

  const sessionStatus = async (token: string) => (await server.request('/api/auth/session', { token })).status

  it('refuses a missing token, an alg:none token, another secret and an expired token', async () => {
    const claims = { org: owner.organization.id }
    const options = { subject: owner.user.id, issuer: 'parley', audience: 'parley-studio' }
    const unsigned = jwt.sign(claims, '', { ...options, algorithm: 'none' })
    const otherSecret = jwt.sign(claims, 'x'.repeat(48), { ...options, algorithm: 'HS256' })
    const hs512 = jwt.sign(claims, server.config.jwtSecret, { ...options, algorithm: 'HS512' })
    const expired = jwt.sign(
      { ...claims, exp: Math.floor(Date.now() / 1000) - 10 },
      server.config.jwtSecret,
      { ...options, algorithm: 'HS256' },
    )
    expect((await server.request('/api/auth/session')).status).toBe(401)
    for (const token of [unsigned, otherSecret, hs512, expired, 'not-a-jwt'])
      expect(await sessionStatus(token)).toBe(401)
    expect(await sessionStatus(owner.token)).toBe(200)
  })
})

describe('organizations and members', () => {
  it('invites, joins on signup, switches organization, and enforces roles', async () => {
    const owner = await signUp(server, { organizationName: 'Team One' })
    const inviteeEmail = uniqueEmail('invitee')
    const invite = await server.request(`/api/organizations/${owner.organization.id}/members`, {
      method: 'POST',
      token: owner.token,
      json: { email: inviteeEmail, role: 'member' },
    })
    expect(invite.status).toBe(201)
    expect(await invite.json()).toMatchObject({
      email: inviteeEmail,
      role: 'member',
      status: 'invited',
      userId: null,
    })

    const again = await server.request(`/api/organizations/${owner.organization.id}/members`, {
      method: 'POST',
      token: owner.token,
      json: { email: inviteeEmail, role: 'member' },
    })
    expect(again.status).toBe(409)

    const invitee = await signUp(server, { email: inviteeEmail, organizationName: 'Own Org' })
    expect(invitee.organizations.map((o) => [o.name, o.role]).sort()).toEqual([
      ['Own Org', 'owner'],
      ['Team One', 'member'],
    ])

    const switched = await server.request('/api/auth/switch-organization', {
      method: 'POST',
      token: invitee.token,
      json: { organizationId: owner.organization.id },
    })
    expect(switched.status).toBe(200)
    const teamSession = (await switched.json()) as Session
    expect(teamSession.organization).toMatchObject({ id: owner.organization.id, role: 'member' })

    const memberInvites = await server.request(`/api/organizations/${owner.organization.id}/members`, {
      method: 'POST',
      token: teamSession.token,
      json: { email: uniqueEmail(), role: 'member' },
    })
    expect(memberInvites.status).toBe(403)
    expect(await memberInvites.json()).toMatchObject({
      code: expect.any(String),
      error: 'Only owners and admins can invite members',
    })

    const members = await server.request(`/api/organizations/${owner.organization.id}/members`, {
      token: teamSession.token,
    })
    expect(members.status).toBe(200)
    const { members: list } = (await members.json()) as { members: { email: string; role: string }[] }
    expect(list.map((m) => m.role).sort()).toEqual(['member', 'owner'])
  })

  it('lets an admin invite members but not admins, and adds existing users at once', async () => {
    const owner = await signUp(server)
    const admin = await signUp(server)
    const existing = await signUp(server)
    const addAdmin = await server.request(`/api/organizations/${owner.organization.id}/members`, {
      method: 'POST',
      token: owner.token,
      json: { email: admin.user.email, role: 'admin' },
    })
    expect(addAdmin.status).toBe(201)
    expect(await addAdmin.json()).toMatchObject({ status: 'active', userId: admin.user.id, role: 'admin' })

    const adminSession = (await (
      await server.request('/api/auth/switch-organization', {
        method: 'POST',
        token: admin.token,
        json: { organizationId: owner.organization.id },
      })
    ).json()) as Session
    const inviteAdmin = await server.request(`/api/organizations/${owner.organization.id}/members`, {
      method: 'POST',
      token: adminSession.token,
      json: { email: existing.user.email, role: 'admin' },
    })
    expect(inviteAdmin.status).toBe(403)
    const inviteMember = await server.request(`/api/organizations/${owner.organization.id}/members`, {
      method: 'POST',
      token: adminSession.token,
      json: { email: existing.user.email, role: 'member' },
    })
    expect(inviteMember.status).toBe(201)
    const duplicate = await server.request(`/api/organizations/${owner.organization.id}/members`, {
      method: 'POST',
      token: owner.token,
      json: { email: existing.user.email },
    })
    expect(duplicate.status).toBe(409)
  })

  it("answers 404 for another organization's id", async () => {
    const a = await signUp(server)
    const b = await signUp(server)
    for (const [method, json] of [
      ['GET', undefined],
      ['POST', { email: uniqueEmail(), role: 'member' }],
    ] as const) {
      const response = await server.request(`/api/organizations/${b.organization.id}/members`, {
        method,
        token: a.token,
        json,
      })
      expect(response.status).toBe(404)
    }
    const switched = await server.request('/api/auth/switch-organization', {
      method: 'POST',
      token: a.token,
      json: { organizationId: b.organization.id },
    })
    expect(switched.status).toBe(404)
  })
})
