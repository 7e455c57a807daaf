import { ulid } from 'ulid'
import type { AppContext } from '../context.ts'
import { displayPrefix, generateSecretKey, generateWidgetKey, hashKey } from './generate.ts'
import * as store from './store.ts'

const KEY_LIFETIME_MS = 365 * 24 * 60 * 60 * 1000

export type CreateApiKey = {
  organizationId: string
  createdBy: string | null
  name: string
  type: 'secret' | 'widget'
  allowedDomains: string[]
}

/** Creates a key; the returned `key` is the only time the full value exists outside the caller. */
export const createApiKey = async (ctx: AppContext, input: CreateApiKey) => {
  const key = input.type === 'widget' ? generateWidgetKey() : generateSecretKey()
  const record = {
    id: ulid(),
    organizationId: input.organizationId,
    createdBy: input.createdBy,
    name: input.name,
    type: input.type,
    keyHash: hashKey(key),
    prefix: displayPrefix(key),
    allowedDomains: input.type === 'widget' ? input.allowedDomains : [],
    expiresAt: new Date(Date.now() + KEY_LIFETIME_MS),
  }
  await store.insertApiKey(ctx.db, record)
  return { key, id: record.id, prefix: record.prefix, expiresAt: record.expiresAt }
}
