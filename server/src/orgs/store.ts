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
  status: 'active' | 'invited'
  createdAt: Date
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

/** Accepts every pending invitation for the email; returns how many became memberships. */
export const acceptInvitations = async (
  db: Executor,
  { email, userId }: { email: string; userId: string },
) => {
  const accepted = await db
    .updateTable('invitations')
    .set({ accepted_at: new Date() })
    .where('email', '=', email)
    .where('accepted_at', 'is', null)
    .returning(['organization_id', 'role'])
    .execute()
  for (const invitation of accepted) {
    await db
      .insertInto('memberships')
      .values({ organization_id: invitation.organization_id, user_id: userId, role: invitation.role })
      .onConflict((oc) => oc.columns(['organization_id', 'user_id']).doNothing())
      .execute()
  }
  return accepted.length
}

/** Returns false when a pending invitation for the email already exists. */
export const insertInvitation = async (
  db: Executor,
  invitation: { id: string; organizationId: string; email: string; role: Role; invitedBy: string },
): Promise<boolean> => {
  try {
    await db
      .insertInto('invitations')
      .values({
        id: invitation.id,
        organization_id: invitation.organizationId,
        email: invitation.email,
        role: invitation.role,
        invited_by: invitation.invitedBy,
      })
      .execute()
    return true
  } catch (error) {
    if (isUniqueViolation(error)) return false
    throw error
  }
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
    .select(['email', 'role', 'created_at as createdAt'])
    .where('organization_id', '=', organizationId)
    .where('accepted_at', 'is', null)
    .orderBy('created_at')
    .execute()
  return [
    ...active.map((m) => ({ ...m, status: 'active' as const })),
    ...invited.map((i) => ({ userId: null, name: null, ...i, status: 'invited' as const })),
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
