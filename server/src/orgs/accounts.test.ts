import type { Session } from '@parley/shared'
import jwt from 'jsonwebtoken'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { acceptInvitations, logIn, PASSWORD, signUp, uniqueEmail } from '../../test/helpers/accounts.ts'
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
  it('invites; the invitee joins only by accepting after signing up; roles are enforced', async () => {
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
      name: null,
    })

    const again = await server.request(`/api/organizations/${owner.organization.id}/members`, {
      method: 'POST',
      token: owner.token,
      json: { email: inviteeEmail, role: 'member' },
    })
    expect(again.status).toBe(409)

    // Signing up joins nothing by itself: the invitation waits for the invitee.
    const invitee = await signUp(server, { email: inviteeEmail, organizationName: 'Own Org' })
    expect(invitee.organizations.map((o) => o.name)).toEqual(['Own Org'])
    const waiting = await server.request('/api/invitations', { token: invitee.token })
    const { invitations } = (await waiting.json()) as { invitations: Array<Record<string, unknown>> }
    expect(invitations).toEqual([
      expect.objectContaining({
        organizationId: owner.organization.id,
        organizationName: 'Team One',
        role: 'member',
        invitedBy: owner.user.name,
      }),
    ])
    const accepted = await server.request(`/api/invitations/${invitations[0]?.id}/accept`, {
      method: 'POST',
      token: invitee.token,
    })
    expect(accepted.status).toBe(200)
    expect(((await accepted.json()) as Session).organizations.map((o) => [o.name, o.role]).sort()).toEqual([
      ['Own Org', 'owner'],
      ['Team One', 'member'],
    ])
    // Accepted once: gone from the list, and not accepted twice.
    expect(
      (
        (await (await server.request('/api/invitations', { token: invitee.token })).json()) as {
          invitations: []
        }
      ).invitations,
    ).toEqual([])
    const twice = await server.request(`/api/invitations/${invitations[0]?.id}/accept`, {
      method: 'POST',
      token: invitee.token,
    })
    expect(twice.status).toBe(404)

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

  it('answers an invitation of an existing account exactly as one of an unknown email, and waits for consent', async () => {
    const owner = await signUp(server)
    const existing = await signUp(server, { name: 'Grace Existing' })
    const unknownEmail = uniqueEmail('nobody')
    const invite = (email: string) =>
      server.request(`/api/organizations/${owner.organization.id}/members`, {
        method: 'POST',
        token: owner.token,
        json: { email, role: 'member' },
      })
    const [forExisting, forUnknown] = [await invite(existing.user.email), await invite(unknownEmail)]
    expect([forExisting.status, forUnknown.status]).toEqual([201, 201])
    const shapeOf = (body: Record<string, unknown>, email: string) => ({
      ...body,
      email: body.email === email ? '<email>' : body.email,
      createdAt: typeof body.createdAt,
      expiresAt: typeof body.expiresAt,
    })
    const existingBody = (await forExisting.json()) as Record<string, unknown>
    const unknownBody = (await forUnknown.json()) as Record<string, unknown>
    expect(shapeOf(existingBody, existing.user.email)).toEqual(shapeOf(unknownBody, unknownEmail))
    expect(JSON.stringify(existingBody)).not.toContain('Grace')
    expect(existingBody).toMatchObject({ status: 'invited', userId: null, name: null })

    // Not a member until the account accepts; the members list shows the invitation, unnamed.
    const members = async () =>
      (
        (await (
          await server.request(`/api/organizations/${owner.organization.id}/members`, { token: owner.token })
        ).json()) as {
          members: Array<{ email: string; status: string; name: string | null }>
        }
      ).members
    expect((await members()).find((m) => m.email === existing.user.email)).toMatchObject({
      status: 'invited',
      name: null,
    })
    const switchBefore = await server.request('/api/auth/switch-organization', {
      method: 'POST',
      token: existing.token,
      json: { organizationId: owner.organization.id },
    })
    expect(switchBefore.status).toBe(404)
    // Signing in does not accept it either.
    const signedIn = await logIn(server, existing.user.email)
    expect(signedIn.organizations).toHaveLength(1)
    const session = await acceptInvitations(server, signedIn.token)
    expect(session?.organizations.map((o) => o.id)).toContain(owner.organization.id)
    expect((await members()).find((m) => m.email === existing.user.email)).toMatchObject({
      status: 'active',
      name: 'Grace Existing',
    })
  })

  it('lets an admin invite members but not admins', async () => {
    const owner = await signUp(server)
    const admin = await signUp(server)
    const existing = await signUp(server)
    const addAdmin = await server.request(`/api/organizations/${owner.organization.id}/members`, {
      method: 'POST',
      token: owner.token,
      json: { email: admin.user.email, role: 'admin' },
    })
    expect(addAdmin.status).toBe(201)
    expect(await addAdmin.json()).toMatchObject({ status: 'invited', userId: null, role: 'admin' })
    await acceptInvitations(server, admin.token)

    const adminSession = (await (
      await server.request('/api/auth/switch-organization', {
        method: 'POST',
        token: admin.token,
        json: { organizationId: owner.organization.id },
      })
    ).json()) as Session
    expect(adminSession.organization.role).toBe('admin')
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
    // An email already a member is refused too (the members list shows it anyway).
    const member = await server.request(`/api/organizations/${owner.organization.id}/members`, {
      method: 'POST',
      token: owner.token,
      json: { email: admin.user.email },
    })
    expect(member.status).toBe(409)
  })

  it('declines, and invitations expire', async () => {
    const owner = await signUp(server)
    const invitee = await signUp(server)
    const invite = () =>
      server.request(`/api/organizations/${owner.organization.id}/members`, {
        method: 'POST',
        token: owner.token,
        json: { email: invitee.user.email, role: 'member' },
      })
    const list = async () =>
      (
        (await (await server.request('/api/invitations', { token: invitee.token })).json()) as {
          invitations: Array<{ id: string }>
        }
      ).invitations
    expect((await invite()).status).toBe(201)
    const [first] = await list()
    const declined = await server.request(`/api/invitations/${first?.id}/decline`, {
      method: 'POST',
      token: invitee.token,
    })
    expect(declined.status).toBe(200)
    expect(await declined.json()).toEqual({ declined: true })
    expect(await list()).toEqual([])
    const late = await server.request(`/api/invitations/${first?.id}/accept`, {
      method: 'POST',
      token: invitee.token,
    })
    expect(late.status).toBe(404)

    // Invited again; then its lifetime passes.
    expect((await invite()).status).toBe(201)
    const [second] = await list()
    await server.ctx.db
      .updateTable('invitations')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', second?.id ?? '')
      .execute()
    expect(await list()).toEqual([])
    const expired = await server.request(`/api/invitations/${second?.id}/accept`, {
      method: 'POST',
      token: invitee.token,
    })
    expect(expired.status).toBe(410)
    expect(await expired.json()).toMatchObject({ code: 'invitation_expired' })
    const members = (await (
      await server.request(`/api/organizations/${owner.organization.id}/members`, { token: owner.token })
    ).json()) as { members: Array<{ email: string; status: string }> }
    expect(members.members.find((m) => m.email === invitee.user.email)?.status).toBe('expired')
    // Inviting again renews it.
    expect((await invite()).status).toBe(201)
    expect(await list()).toHaveLength(1)
    expect(server.config.invitationTtlMs).toBe(7 * 24 * 60 * 60 * 1000)
  })

  it("never shows or lets another account accept someone else's invitation", async () => {
    const owner = await signUp(server)
    const invitee = await signUp(server)
    const stranger = await signUp(server)
    await server.request(`/api/organizations/${owner.organization.id}/members`, {
      method: 'POST',
      token: owner.token,
      json: { email: invitee.user.email, role: 'admin' },
    })
    const listed = (await (await server.request('/api/invitations', { token: invitee.token })).json()) as {
      invitations: Array<{ id: string }>
    }
    const id = listed.invitations[0]?.id ?? ''
    const strangers = (await (
      await server.request('/api/invitations', { token: stranger.token })
    ).json()) as {
      invitations: unknown[]
    }
    expect(strangers.invitations).toEqual([])
    for (const action of ['accept', 'decline'])
      expect(
        (await server.request(`/api/invitations/${id}/${action}`, { method: 'POST', token: stranger.token }))
          .status,
      ).toBe(404)
    // The owner (another account, even of the inviting organization) cannot accept it for them.
    expect(
      (await server.request(`/api/invitations/${id}/accept`, { method: 'POST', token: owner.token })).status,
    ).toBe(404)
    const stillWaiting = (await (
      await server.request('/api/invitations', { token: invitee.token })
    ).json()) as {
      invitations: unknown[]
    }
    expect(stillWaiting.invitations).toHaveLength(1)
    expect((await server.request('/api/invitations')).status).toBe(401)
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
