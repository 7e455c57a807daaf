import type { Role, Tier } from '@parley/shared'
import { type Executor, isUniqueViolation } from '../db/index.ts'

export type UserRow = { id: string; email: string; name: string; passwordHash: string; createdAt: Date }
export type MembershipRow = { organizationId: string; name: string; role: Role; tier: Tier; createdAt: Date }
export type OrganizationRow = {
  id: string
  name: string
  tier: Tier
  rateLimitPerMinute: number | null
  creditBalanceMicros: number
  createdAt: Date
}
export type MemberRow = {
  userId: string | null
  email: string
  name: string | null
  role: Role
  status: 'active' | 'invited' | 'expired'
  createdAt: Date
  expiresAt: Date | null
}

export type InvitationRow = {
  id: string
  organizationId: string
  organizationName: string
  role: Role
  invitedBy: string | null
  createdAt: Date
  expiresAt: Date
}

/** Returns false when the email is taken. */
export const insertUser = async (
  db: Executor,
  user: { id: string; email: string; name: string; passwordHash: string },
): Promise<boolean> => {
  try {
    await db
      .insertInto('users')
      .values({ id: user.id, email: user.email, name: user.name, password_hash: user.passwordHash })
      .execute()
    return true
  } catch (error) {
    if (isUniqueViolation(error)) return false
    throw error
  }
}

const userColumns = [
  'id',
  'email',
  'name',
  'password_hash as passwordHash',
  'created_at as createdAt',
] as const

export const findUserByEmail = (db: Executor, email: string): Promise<UserRow | undefined> =>
  db.selectFrom('users').select(userColumns).where('email', '=', email).executeTakeFirst()

export const findUserById = (db: Executor, id: string): Promise<UserRow | undefined> =>
  db.selectFrom('users').select(userColumns).where('id', '=', id).executeTakeFirst()

export const insertOrganization = async (db: Executor, org: { id: string; name: string }) => {
  await db
    .insertInto('organizations')
    .values({ id: org.id, name: org.name, tier: 'free', rate_limit_per_minute: null })
    .execute()
}

export const insertMembership = async (
  db: Executor,
  m: { organizationId: string; userId: string; role: Role },
) => {
  await db
    .insertInto('memberships')
    .values({ organization_id: m.organizationId, user_id: m.userId, role: m.role })
    .execute()
}

export const listMembershipsOfUser = (db: Executor, userId: string): Promise<MembershipRow[]> =>
  db
    .selectFrom('memberships')
    .innerJoin('organizations', 'organizations.id', 'memberships.organization_id')
    .select([
      'organizations.id as organizationId',
      'organizations.name',
      'memberships.role',
      'organizations.tier',
      'memberships.created_at as createdAt',
    ])
    .where('memberships.user_id', '=', userId)
    .orderBy('memberships.created_at')
    .orderBy('organizations.id')
    .execute()

export const findRole = async (
  db: Executor,
  { organizationId, userId }: { organizationId: string; userId: string },
) => {
  const row = await db
    .selectFrom('memberships')
    .select('role')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  return row?.role
}

/** Whether the email is a member's of the organization. */
export const isMemberByEmail = async (
  db: Executor,
  { organizationId, email }: { organizationId: string; email: string },
) =>
  (await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select('memberships.user_id')
    .where('memberships.organization_id', '=', organizationId)
    .where('users.email', '=', email)
    .executeTakeFirst()) !== undefined

/**
 * Stores an invitation; an open one for the same email that has expired is replaced (two
 * statements: run it in a transaction). Returns false when an open invitation for the email is
 * still waiting.
 */
export const insertInvitation = async (
  db: Executor,
  invitation: {
    id: string
    organizationId: string
    email: string
    role: Role
    invitedBy: string
    expiresAt: Date
  },
): Promise<boolean> => {
  const now = new Date()
  await db
    .deleteFrom('invitations')
    .where('organization_id', '=', invitation.organizationId)
    .where('email', '=', invitation.email)
    .where('accepted_at', 'is', null)
    .where('declined_at', 'is', null)
    .where('expires_at', '<=', now)
    .execute()
  const inserted = await db
    .insertInto('invitations')
    .values({
      id: invitation.id,
      organization_id: invitation.organizationId,
      email: invitation.email,
      role: invitation.role,
      invited_by: invitation.invitedBy,
      created_at: now,
      expires_at: invitation.expiresAt,
    })
    .onConflict((oc) =>
      oc
        .columns(['organization_id', 'email'])
        .where('accepted_at', 'is', null)
        .where('declined_at', 'is', null)
        .doNothing(),
    )
    .returning('id')
    .executeTakeFirst()
  return inserted !== undefined
}

const openInvitations = (db: Executor) =>
  db
    .selectFrom('invitations')
    .innerJoin('organizations', 'organizations.id', 'invitations.organization_id')
    .leftJoin('users as inviter', 'inviter.id', 'invitations.invited_by')
    .select([
      'invitations.id',
      'invitations.organization_id as organizationId',
      'organizations.name as organizationName',
      'invitations.role',
      'inviter.name as invitedBy',
      'invitations.created_at as createdAt',
      'invitations.expires_at as expiresAt',
    ])
    .where('invitations.accepted_at', 'is', null)
    .where('invitations.declined_at', 'is', null)

/** The invitations addressed to an email that are still waiting (not accepted, declined or expired). */
export const listInvitationsFor = (
  db: Executor,
  { email, now }: { email: string; now: Date },
): Promise<InvitationRow[]> =>
  openInvitations(db)
    .where('invitations.email', '=', email)
    .where('invitations.expires_at', '>', now)
    .orderBy('invitations.created_at')
    .orderBy('invitations.id')
    .execute()

/** An open invitation addressed to this email (expired or not); undefined for any other. */
export const findInvitationFor = (db: Executor, { id, email }: { id: string; email: string }) =>
  openInvitations(db)
    .where('invitations.id', '=', id)
    .where('invitations.email', '=', email)
    .executeTakeFirst()

/**
 * Accepts the invitation and makes the membership, in the caller's transaction, only while it is
 * open, addressed to `email` and not expired. Answers the organization joined, or undefined.
 */
export const acceptInvitation = async (
  db: Executor,
  { id, email, userId, now }: { id: string; email: string; userId: string; now: Date },
) => {
  const accepted = await db
    .updateTable('invitations')
    .set({ accepted_at: now })
    .where('id', '=', id)
    .where('email', '=', email)
    .where('accepted_at', 'is', null)
    .where('declined_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['organization_id', 'role'])
    .executeTakeFirst()
  if (!accepted) return undefined
  await db
    .insertInto('memberships')
    .values({ organization_id: accepted.organization_id, user_id: userId, role: accepted.role })
    .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doNothing())
    .execute()
  return accepted.organization_id
}

/** Declines an open invitation addressed to `email`; false when there is none. */
export const declineInvitation = async (
  db: Executor,
  { id, email, now }: { id: string; email: string; now: Date },
) => {
  const declined = await db
    .updateTable('invitations')
    .set({ declined_at: now })
    .where('id', '=', id)
    .where('email', '=', email)
    .where('accepted_at', 'is', null)
    .where('declined_at', 'is', null)
    .returning('id')
    .executeTakeFirst()
  return declined !== undefined
}

export const listMembers = async (db: Executor, organizationId: string): Promise<MemberRow[]> => {
  const active = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select([
      'users.id as userId',
      'users.email',
      'users.name',
      'memberships.role',
      'memberships.created_at as createdAt',
    ])
    .where('memberships.organization_id', '=', organizationId)
    .orderBy('memberships.created_at')
    .execute()
  const invited = await db
    .selectFrom('invitations')
    .select(['email', 'role', 'created_at as createdAt', 'expires_at as expiresAt'])
    .where('organization_id', '=', organizationId)
    .where('accepted_at', 'is', null)
    .where('declined_at', 'is', null)
    .orderBy('created_at')
    .execute()
  const now = new Date()
  return [
    ...active.map((m) => ({ ...m, status: 'active' as const, expiresAt: null })),
    ...invited.map((i) => ({
      userId: null,
      name: null,
      ...i,
      status: i.expiresAt > now ? ('invited' as const) : ('expired' as const),
    })),
  ]
}

const organizationColumns = [
  'id',
  'name',
  'tier',
  'rate_limit_per_minute as rateLimitPerMinute',
  'credit_balance_micros as creditBalanceMicros',
  'created_at as createdAt',
] as const

export const listOrganizations = (db: Executor): Promise<OrganizationRow[]> =>
  db.selectFrom('organizations').select(organizationColumns).orderBy('created_at').orderBy('id').execute()

export const findOrganization = (db: Executor, id: string): Promise<OrganizationRow | undefined> =>
  db.selectFrom('organizations').select(organizationColumns).where('id', '=', id).executeTakeFirst()

export const updateOrganizationLimits = (
  db: Executor,
  id: string,
  changes: { tier?: Tier; rateLimitPerMinute?: number | null },
): Promise<OrganizationRow | undefined> =>
  db
    .updateTable('organizations')
    .set({
      ...(changes.tier !== undefined ? { tier: changes.tier } : {}),
      ...(changes.rateLimitPerMinute !== undefined
        ? { rate_limit_per_minute: changes.rateLimitPerMinute }
        : {}),
    })
    .where('id', '=', id)
    .returning(organizationColumns)
    .executeTakeFirst()

/** The organization's sealed identity secret and when it was made; undefined fields when none yet. */
export const findIdentitySecret = async (db: Executor, organizationId: string) => {
  const row = await db
    .selectFrom('organizations')
    .select(['identity_secret as sealed', 'identity_secret_created_at as createdAt'])
    .where('id', '=', organizationId)
    .executeTakeFirst()
  return row?.sealed && row.createdAt ? { sealed: row.sealed, createdAt: row.createdAt } : undefined
}

/**
 * Stores a sealed identity secret: only when there is none (`replace: false`, so two first reads
 * keep one), or in place of the current one (rotation).
 */
export const storeIdentitySecret = async (
  db: Executor,
  { organizationId, sealed, replace }: { organizationId: string; sealed: string; replace: boolean },
) => {
  let query = db
    .updateTable('organizations')
    .set({ identity_secret: sealed, identity_secret_created_at: new Date() })
    .where('id', '=', organizationId)
  if (!replace) query = query.where('identity_secret', 'is', null)
  await query.execute()
}
