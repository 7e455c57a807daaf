import type { Executor } from '../db/index.ts'

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

export const insertApiKey = async (db: Executor, key: NewApiKey) => {
  await db
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
    .execute()
}
