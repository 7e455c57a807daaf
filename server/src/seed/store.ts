import type { Executor } from '../db/index.ts'

/** The demo owner and the organization they own, by the owner's email. */
export const findDemoOwner = (db: Executor, email: string) =>
  db
    .selectFrom('users')
    .innerJoin('memberships', 'memberships.user_id', 'users.id')
    .select(['users.id as userId', 'memberships.organization_id as organizationId'])
    .where('users.email', '=', email)
    .where('memberships.role', '=', 'owner')
    .orderBy('memberships.created_at')
    .executeTakeFirst()

/** An agent of the organization by its name (the oldest, should names repeat). */
export const findAgentIdByName = async (
  db: Executor,
  { organizationId, name }: { organizationId: string; name: string },
) =>
  (
    await db
      .selectFrom('agents')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('name', '=', name)
      .orderBy('created_at')
      .executeTakeFirst()
  )?.id

export const setPasswordHash = (
  db: Executor,
  { userId, passwordHash }: { userId: string; passwordHash: string },
) => db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute()
