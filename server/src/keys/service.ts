import type { ApiKey, CreateApiKey, CreatedApiKey, UpdateApiKey } from '@parley/shared'
import { type AuditBy, recordAudit } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { newUlid } from '../crypto/ids.ts'
import { AppError } from '../http/app-error.ts'
import type { StudioActor } from '../http/types.ts'
import { displayPrefix, generateSecretKey, generateWidgetKey, hashKey } from './generate.ts'
import { formatDomainRule, parseDomainRule } from './origin.ts'
import * as store from './store.ts'

const KEY_LIFETIME_MS = 365 * 24 * 60 * 60 * 1000

const statusLabels = { active: 'Active', disabled: 'Disabled', revoked: 'Revoked' } as const

const present = (row: store.ApiKeyRow): ApiKey => ({
  id: row.id,
  name: row.name,
  type: row.type,
  prefix: row.prefix,
  allowedDomains: row.allowedDomains,
  status: statusLabels[row.status],
  created: row.createdAt.toISOString(),
  expires: row.expiresAt.toISOString(),
  organization: row.organizationId,
})

/** Normalizes what the owner typed; one bad entry refuses the whole list, naming it. */
const normalizeDomains = (entries: string[]) => [
  ...new Set(
    entries.map((entry) => {
      const rule = parseDomainRule(entry)
      if (!rule) throw AppError.badRequest(`allowedDomains: "${entry.slice(0, 100)}" is not a domain`)
      return formatDomainRule(rule)
    }),
  ),
]

const requireOwner = (actor: StudioActor) => {
  if (actor.role !== 'owner') throw AppError.forbidden('Only owners can create and manage API keys')
}

type NewKey = {
  organizationId: string
  /** The member the key acts for (`by` is who made the change). */
  createdBy: string | null
  name: string
  type: 'secret' | 'widget'
  allowedDomains: string[]
  /** Who made the change, from where: `auditBySystem` for the demo seed and tests without a request. */
  by: AuditBy
}

/** Creates a key; the returned `key` is the only time the full value exists outside the caller. */
export const createApiKey = async (ctx: AppContext, input: NewKey): Promise<CreatedApiKey> => {
  const key = input.type === 'widget' ? generateWidgetKey() : generateSecretKey()
  const row = await ctx.db.transaction().execute(async (tx) => {
    const inserted = await store.insertApiKey(tx, {
      id: newUlid(),
      organizationId: input.organizationId,
      createdBy: input.createdBy,
      name: input.name,
      type: input.type,
      keyHash: hashKey(key),
      prefix: displayPrefix(key),
      allowedDomains: input.type === 'widget' ? normalizeDomains(input.allowedDomains) : [],
      expiresAt: new Date(Date.now() + KEY_LIFETIME_MS),
    })
    await recordAudit(tx, input.by, {
      organizationId: input.organizationId,
      action: 'key.created',
      target: { kind: 'key', id: inserted.id },
      details: { type: input.type, name: input.name, allowedDomains: inserted.allowedDomains.length },
    })
    return inserted
  })
  return { ...present(row), key }
}

export const createKeyForOwner = (
  ctx: AppContext,
  actor: StudioActor,
  input: CreateApiKey,
  by: AuditBy,
): Promise<CreatedApiKey> => {
  requireOwner(actor)
  if (input.type === 'secret' && input.allowedDomains?.length)
    throw AppError.badRequest('allowedDomains: applies to widget keys only')
  return createApiKey(ctx, {
    organizationId: actor.organizationId,
    createdBy: actor.userId,
    name: input.name,
    type: input.type,
    allowedDomains: input.allowedDomains ?? [],
    by,
  })
}

/** Every role may look; nobody sees more than the prefix. */
export const listKeys = async (ctx: AppContext, actor: StudioActor) =>
  (await store.listApiKeys(ctx.db, actor.organizationId)).map(present)

/** Runs a change on a key of the actor's organization; tells 404 (not ours) from 409 (revoked). */
const changeKey = async (
  ctx: AppContext,
  actor: StudioActor,
  id: string,
  by: AuditBy,
  changes: Parameters<typeof store.updateApiKey>[2],
  action: 'key.updated' | 'key.enabled' | 'key.disabled' = 'key.updated',
) => {
  requireOwner(actor)
  const scope = { id, organizationId: actor.organizationId }
  const row = await ctx.db.transaction().execute(async (tx) => {
    const updated = await store.updateApiKey(tx, scope, changes)
    if (updated)
      await recordAudit(tx, by, {
        organizationId: actor.organizationId,
        action,
        target: { kind: 'key', id },
        details: { fields: Object.keys(changes) },
      })
    return updated
  })
  if (!row) {
    if (!(await store.findApiKey(ctx.db, scope))) throw AppError.notFound('API key')
    throw AppError.conflict('This API key is revoked; revoking cannot be undone', 'key_revoked')
  }
  await ctx.signals.publish('key.changed', { keyId: id })
  return present(row)
}

export const updateKey = async (
  ctx: AppContext,
  actor: StudioActor,
  id: string,
  input: UpdateApiKey,
  by: AuditBy,
) => {
  requireOwner(actor)
  const existing = await store.findApiKey(ctx.db, { id, organizationId: actor.organizationId })
  if (!existing) throw AppError.notFound('API key')
  if (input.allowedDomains !== undefined && existing.type !== 'widget')
    throw AppError.badRequest('allowedDomains: applies to widget keys only')
  return changeKey(ctx, actor, id, by, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.allowedDomains !== undefined ? { allowedDomains: normalizeDomains(input.allowedDomains) } : {}),
  })
}

export const disableKey = (ctx: AppContext, actor: StudioActor, id: string, by: AuditBy) =>
  changeKey(ctx, actor, id, by, { status: 'disabled' }, 'key.disabled')

export const enableKey = (ctx: AppContext, actor: StudioActor, id: string, by: AuditBy) =>
  changeKey(ctx, actor, id, by, { status: 'active' }, 'key.enabled')

/** What else ends with a revoked key (calls/ registers its live calls' end), per server instance. */
const revokedListeners = new WeakMap<AppContext, Set<(keyId: string) => Promise<void>>>()

/** Calls `listener` after each key this instance revokes, awaited before the revoke answers. */
export const onKeyRevoked = (ctx: AppContext, listener: (keyId: string) => Promise<void>) => {
  const set = revokedListeners.get(ctx) ?? new Set()
  revokedListeners.set(ctx, set)
  set.add(listener)
  return () => void set.delete(listener)
}

/**
 * Final: the key stops working on every instance at once, the streams opened with it end and so
 * do its live voice calls.
 * Revoking a revoked key answers its current state, so a retried click is harmless.
 */
export const revokeKey = async (ctx: AppContext, actor: StudioActor, id: string, by: AuditBy) => {
  requireOwner(actor)
  const scope = { id, organizationId: actor.organizationId }
  const row = await ctx.db.transaction().execute(async (tx) => {
    const revoked = await store.updateApiKey(tx, scope, { status: 'revoked' })
    if (revoked)
      await recordAudit(tx, by, {
        organizationId: actor.organizationId,
        action: 'key.revoked',
        target: { kind: 'key', id },
      })
    return revoked
  })
  if (!row) {
    const existing = await store.findApiKey(ctx.db, scope)
    if (!existing) throw AppError.notFound('API key')
    return present(existing)
  }
  await ctx.signals.publish('key.changed', { keyId: id })
  await ctx.signals.publish('key.revoked', { keyId: id })
  for (const listener of revokedListeners.get(ctx) ?? []) await listener(id)
  return present(row)
}

export const keyCreatorOf = (ctx: AppContext, keyId: string) => store.findKeyCreator(ctx.db, keyId)
