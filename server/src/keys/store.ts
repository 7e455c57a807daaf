import type { Executor } from '../db/index.ts'
import type { KeyCredential } from './cache.ts'

export type KeyStatus = 'active' | 'disabled' | 'revoked'

export type NewApiKey = {
  id: string
  organizationId: string
  createdBy: string | null
  name: string
  type: 'secret' | 'widget'
  keyHash: string
  prefix: string
  allowedDomains: string[]
  expiresAt: Date
}

export type ApiKeyRow = {
  id: string
  organizationId: string
  name: string
  type: 'secret' | 'widget'
  prefix: string
  allowedDomains: string[]
  status: KeyStatus
  createdAt: Date
  expiresAt: Date
}

const keyColumns = [
  'id',
  'organization_id as organizationId',
  'name',
  'type',
  'prefix',
  'allowed_domains as allowedDomains',
  'status',
  'created_at as createdAt',
  'expires_at as expiresAt',
] as const

type Scope = { id: string; organizationId: string }

export const insertApiKey = async (db: Executor, key: NewApiKey): Promise<ApiKeyRow> =>
  db
    .insertInto('api_keys')
    .values({
      id: key.id,
      organization_id: key.organizationId,
      created_by: key.createdBy,
      name: key.name,
      type: key.type,
      key_hash: key.keyHash,
      prefix: key.prefix,
      allowed_domains: JSON.stringify(key.allowedDomains),
      expires_at: key.expiresAt,
    })
    .returning(keyColumns)
    .executeTakeFirstOrThrow()

export const listApiKeys = (db: Executor, organizationId: string): Promise<ApiKeyRow[]> =>
  db
    .selectFrom('api_keys')
    .select(keyColumns)
    .where('organization_id', '=', organizationId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute()

/** Scoped by organization, so another organization's id reads as missing. */
export const findApiKey = (db: Executor, { id, organizationId }: Scope): Promise<ApiKeyRow | undefined> =>
  db
    .selectFrom('api_keys')
    .select(keyColumns)
    .where('id', '=', id)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst()

/** Changes a key that is not revoked; undefined when there is no such key or it is revoked. */
export const updateApiKey = (
  db: Executor,
  scope: Scope,
  changes: { name?: string; allowedDomains?: string[]; status?: KeyStatus },
): Promise<ApiKeyRow | undefined> =>
  db
    .updateTable('api_keys')
    .set({
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.allowedDomains !== undefined
        ? { allowed_domains: JSON.stringify(changes.allowedDomains) }
        : {}),
      ...(changes.status !== undefined ? { status: changes.status } : {}),
      ...(changes.status === 'revoked' ? { revoked_at: new Date() } : {}),
    })
    .where('id', '=', scope.id)
    .where('organization_id', '=', scope.organizationId)
    .where('status', '<>', 'revoked')
    .returning(keyColumns)
    .executeTakeFirst()

/** The credential behind a key digest, with what rate limiting needs of its organization. */
export const findCredentialByHash = (db: Executor, keyHash: string): Promise<KeyCredential | undefined> =>
  db
    .selectFrom('api_keys')
    .innerJoin('organizations', 'organizations.id', 'api_keys.organization_id')
    .select([
      'api_keys.id as id',
      'api_keys.organization_id as organizationId',
      'api_keys.type as type',
      'api_keys.status as status',
      'api_keys.allowed_domains as allowedDomains',
      'api_keys.expires_at as expiresAt',
      'organizations.tier as tier',
      'organizations.rate_limit_per_minute as rateLimitPerMinute',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst()

export const touchLastUsed = async (db: Executor, id: string) => {
  await db.updateTable('api_keys').set({ last_used_at: new Date() }).where('id', '=', id).execute()
}

/** The user who created the key and their current role in the key's organization (null if they left). */
export const findKeyCreator = async (db: Executor, keyId: string) =>
  db
    .selectFrom('api_keys')
    .leftJoin('memberships', (join) =>
      join
        .onRef('memberships.user_id', '=', 'api_keys.created_by')
        .onRef('memberships.organization_id', '=', 'api_keys.organization_id'),
    )
    .select(['api_keys.created_by as userId', 'memberships.role as role'])
    .where('api_keys.id', '=', keyId)
    .executeTakeFirst()
