import type {
  Invitation,
  InviteMember,
  LedgerQuery,
  Login,
  Member,
  Membership,
  OrganizationLedger,
  Role,
  Session,
  Signup,
  SwitchOrganization,
  V1Organization,
} from '@parley/shared'
import { tierRateLimits } from '@parley/shared'
import { type AuditBy, recordAudit } from '../audit/index.ts'
import { changeBalance, readLedgerPage, toUsd } from '../billing/index.ts'
import type { AppContext } from '../context.ts'
import { newUlid } from '../crypto/ids.ts'
import { AppError } from '../http/app-error.ts'
import type { StudioActor } from '../http/types.ts'
import { hashPassword, verifyPassword } from './passwords.ts'
import * as store from './store.ts'
import { signStudioToken, verifyStudioToken } from './studio-token.ts'

const presentMembership = (m: store.MembershipRow): Membership => ({
  id: m.organizationId,
  name: m.name,
  role: m.role,
  tier: m.tier,
})

const presentMember = (m: store.MemberRow): Member => ({
  ...m,
  createdAt: m.createdAt.toISOString(),
  expiresAt: m.expiresAt?.toISOString() ?? null,
})

/** Issues a studio token for the organization and describes the session around it. */
const openSession = async (
  ctx: AppContext,
  { userId, organizationId }: { userId: string; organizationId: string },
) => {
  const user = await store.findUserById(ctx.db, userId)
  const memberships = await store.listMembershipsOfUser(ctx.db, userId)
  const active = memberships.find((m) => m.organizationId === organizationId)
  if (!user || !active) throw AppError.notFound('organization')
  const { token, expiresAt } = signStudioToken(ctx.config.jwtSecret, { userId, organizationId })
  return {
    token,
    expiresAt: expiresAt.toISOString(),
    user: { id: user.id, name: user.name, email: user.email, createdAt: user.createdAt.toISOString() },
    organization: presentMembership(active),
    organizations: memberships.map(presentMembership),
  } satisfies Session
}

/**
 * Creates the user and their organization (with trial credits), atomically. Invitations to the
 * email wait for the new account to accept them (GET /api/invitations): joining is the invitee's act.
 */
export const signup = async (ctx: AppContext, input: Signup): Promise<Session> => {
  const passwordHash = await hashPassword(input.password)
  const userId = newUlid()
  const organizationId = newUlid()
  await ctx.db.transaction().execute(async (tx) => {
    const created = await store.insertUser(tx, {
      id: userId,
      email: input.email,
      name: input.name,
      passwordHash,
    })
    if (!created) throw AppError.badRequest('An account with this email already exists', 'email_taken')
    await store.insertOrganization(tx, { id: organizationId, name: input.organizationName })
    await store.insertMembership(tx, { organizationId, userId, role: 'owner' })
    if (ctx.config.trialCreditsMicros > 0) {
      await changeBalance(
        { db: ctx.db, executor: tx },
        {
          organizationId,
          amountMicros: ctx.config.trialCreditsMicros,
          kind: 'trial',
          reason: 'Trial credits on signup',
        },
      )
    }
  })
  return openSession(ctx, { userId, organizationId })
}

/** One answer for an unknown email and a wrong password, equally slow, so neither leaks. */
export const login = async (ctx: AppContext, input: Login): Promise<Session> => {
  const user = await store.findUserByEmail(ctx.db, input.email)
  const isValid = await verifyPassword(user?.passwordHash ?? null, input.password)
  if (!user || !isValid) throw AppError.unauthorized('Email or password is incorrect', 'invalid_credentials')
  const [first] = await store.listMembershipsOfUser(ctx.db, user.id)
  if (!first) throw AppError.forbidden('This account belongs to no organization')
  return openSession(ctx, { userId: user.id, organizationId: first.organizationId })
}

export const switchOrganization = (ctx: AppContext, actor: StudioActor, input: SwitchOrganization) =>
  openSession(ctx, { userId: actor.userId, organizationId: input.organizationId })

export const describeSession = async (ctx: AppContext, actor: StudioActor) => {
  const { token: _token, expiresAt: _expiresAt, ...session } = await openSession(ctx, actor)
  return session
}

/**
 * Resolves a studio token to an actor. The role is read from the database on every request so
 * that a removal or demotion takes effect at once, not when the token expires.
 */
export const authenticateStudioToken = async (ctx: AppContext, token: string): Promise<StudioActor> => {
  const claims = verifyStudioToken(ctx.config.jwtSecret, token)
  const role = await store.findRole(ctx.db, claims)
  if (!role) throw AppError.unauthorized('This session no longer has access to its organization')
  return { kind: 'studio', ...claims, role }
}

/** The actor's role in another organization they belong to; 404 when they don't. */
export const roleIn = async (ctx: AppContext, actor: StudioActor, organizationId: string): Promise<Role> => {
  if (organizationId === actor.organizationId) return actor.role
  const role = await store.findRole(ctx.db, { organizationId, userId: actor.userId })
  if (!role) throw AppError.notFound('organization')
  return role
}

/** Owners invite anyone; admins invite members; members invite no one. */
const mayInvite = (inviter: Role, invitee: Role) =>
  inviter === 'owner' || (inviter === 'admin' && invitee === 'member')

/**
 * Invites an email. The invitation waits until its invitee accepts it (signed in with that email,
 * or after signing up with it), and expires after INVITATION_TTL_DAYS. The answer is the same
 * whether or not the email has an account, and never names its owner: only an email already a
 * member here (which the members list shows anyway) is refused, 409.
 */
export const inviteMember = async (
  ctx: AppContext,
  actor: StudioActor,
  { organizationId, invitation, by }: { organizationId: string; invitation: InviteMember; by: AuditBy },
): Promise<Member> => {
  const inviterRole = await roleIn(ctx, actor, organizationId)
  if (!mayInvite(inviterRole, invitation.role)) {
    throw AppError.forbidden(
      inviterRole === 'member'
        ? 'Only owners and admins can invite members'
        : 'Only owners can invite admins and owners',
    )
  }
  if (await store.isMemberByEmail(ctx.db, { organizationId, email: invitation.email }))
    throw AppError.conflict('This person is already a member', 'already_member')
  const expiresAt = new Date(Date.now() + ctx.config.invitationTtlMs)
  const invitationId = newUlid()
  const created = await ctx.db.transaction().execute(async (tx) => {
    const isCreated = await store.insertInvitation(tx, {
      id: invitationId,
      organizationId,
      email: invitation.email,
      role: invitation.role,
      invitedBy: actor.userId,
      expiresAt,
    })
    if (isCreated)
      await recordAudit(tx, by, {
        organizationId,
        action: 'member.invited',
        target: { kind: 'invitation', id: invitationId },
        details: { role: invitation.role },
      })
    return isCreated
  })
  if (!created) throw AppError.conflict('This email has already been invited', 'already_member')
  return presentMember({
    userId: null,
    email: invitation.email,
    name: null,
    role: invitation.role,
    status: 'invited',
    createdAt: new Date(),
    expiresAt,
  })
}

const presentInvitation = (row: store.InvitationRow): Invitation => ({
  ...row,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
})

/** The signed-in account's own email, as invitations are addressed. */
const emailOf = async (ctx: AppContext, actor: StudioActor) => {
  const user = await store.findUserById(ctx.db, actor.userId)
  if (!user) throw AppError.unauthorized('This session no longer has an account')
  return user.email
}

/** The invitations waiting for the signed-in account (addressed to its email, not expired). */
export const listMyInvitations = async (ctx: AppContext, actor: StudioActor) => ({
  invitations: (
    await store.listInvitationsFor(ctx.db, { email: await emailOf(ctx, actor), now: new Date() })
  ).map(presentInvitation),
})

/** Another account's invitation, or an unknown one, is 404; this account's expired one is 410. */
const requireOpenInvitation = async (ctx: AppContext, { id, email }: { id: string; email: string }) => {
  const invitation = await store.findInvitationFor(ctx.db, { id, email })
  if (!invitation) throw AppError.notFound('invitation')
  if (invitation.expiresAt <= new Date())
    throw new AppError({
      status: 410,
      code: 'invitation_expired',
      message: 'This invitation has expired; ask for a new one',
    })
  return invitation
}

/**
 * The invitee joins: the membership is made and the session (still on its active organization)
 * answered with the organization among its own.
 */
export const acceptInvitation = async (
  ctx: AppContext,
  actor: StudioActor,
  invitationId: string,
  by: AuditBy,
) => {
  const email = await emailOf(ctx, actor)
  await requireOpenInvitation(ctx, { id: invitationId, email })
  const joined = await ctx.db.transaction().execute(async (tx) => {
    const organizationId = await store.acceptInvitation(tx, {
      id: invitationId,
      email,
      userId: actor.userId,
      now: new Date(),
    })
    if (organizationId)
      await recordAudit(tx, by, {
        organizationId,
        action: 'member.joined',
        target: { kind: 'member', id: actor.userId },
        details: { invitationId },
      })
    return organizationId
  })
  // Expired, accepted or declined between the read and now.
  if (!joined) throw AppError.notFound('invitation')
  return openSession(ctx, actor)
}

export const declineInvitation = async (ctx: AppContext, actor: StudioActor, invitationId: string) => {
  const email = await emailOf(ctx, actor)
  await requireOpenInvitation(ctx, { id: invitationId, email })
  if (!(await store.declineInvitation(ctx.db, { id: invitationId, email, now: new Date() })))
    throw AppError.notFound('invitation')
  return { declined: true as const }
}

export const listMembers = async (ctx: AppContext, actor: StudioActor, organizationId: string) => {
  await roleIn(ctx, actor, organizationId)
  return (await store.listMembers(ctx.db, organizationId)).map(presentMember)
}

/**
 * The credit ledger is money: owners and admins read it, as they export it; a member is refused.
 * Another organization answers 404, as a missing one does.
 */
export const readLedger = async (
  ctx: AppContext,
  actor: StudioActor,
  { organizationId, query }: { organizationId: string; query: LedgerQuery },
): Promise<OrganizationLedger> => {
  const role = await roleIn(ctx, actor, organizationId)
  if (role === 'member') throw AppError.forbidden('Only owners and admins can read the credit ledger')
  return readLedgerPage(ctx.db, { organizationId, ...query })
}

export const listOrganizations = (ctx: AppContext) => store.listOrganizations(ctx.db)

export const findOrganization = async (ctx: AppContext, id: string) => {
  const organization = await store.findOrganization(ctx.db, id)
  if (!organization) throw AppError.notFound('organization')
  return organization
}

export const updateOrganizationLimits = async (
  ctx: AppContext,
  id: string,
  changes: { tier?: store.OrganizationRow['tier']; rateLimitPerMinute?: number | null },
) => {
  const organization = await store.updateOrganizationLimits(ctx.db, id, changes)
  if (!organization) throw AppError.notFound('organization')
  return organization
}

export const isEmailRegistered = async (ctx: AppContext, email: string) =>
  (await store.findUserByEmail(ctx.db, email)) !== undefined

/** What an API key may read about its own organization (GET /v1/organization). */
export const describeOrganization = async (ctx: AppContext, id: string): Promise<V1Organization['data']> => {
  const organization = await findOrganization(ctx, id)
  return {
    id: organization.id,
    name: organization.name,
    tier: organization.tier,
    rateLimitPerMinute: organization.rateLimitPerMinute ?? tierRateLimits[organization.tier],
    creditBalanceUsd: toUsd(organization.creditBalanceMicros),
  }
}
