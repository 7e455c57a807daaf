import type { ProviderKeysUpdate } from '@parley/shared'
import { type AuditBy, recordAudit } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { createSecretBox } from '../crypto/secret-box.ts'
import { AppError } from '../http/app-error.ts'
import type { StudioActor } from '../http/types.ts'
import * as store from './provider-keys-store.ts'
import { roleIn } from './service.ts'

const present = (rows: store.ProviderKeyRow[]) => ({
  providers: rows.map((row) => ({
    provider: row.provider,
    last4: row.last4,
    updatedAt: row.updatedAt.toISOString(),
  })),
})

export const listProviderKeys = async (ctx: AppContext, actor: StudioActor, organizationId: string) => {
  await roleIn(ctx, actor, organizationId)
  return present(await store.listProviderKeys(ctx.db, organizationId))
}

/** Owners and admins set (or, with null, remove) provider keys; they are stored encrypted, shown by last 4 only. */
export const updateProviderKeys = async (
  ctx: AppContext,
  actor: StudioActor,
  { organizationId, update, by }: { organizationId: string; update: ProviderKeysUpdate; by: AuditBy },
) => {
  const role = await roleIn(ctx, actor, organizationId)
  if (role === 'member') throw AppError.forbidden('Only owners and admins can change provider keys')
  const box = createSecretBox(ctx.config.encryptionKey)
  await ctx.db.transaction().execute(async (tx) => {
    for (const [provider, key] of Object.entries(update.keys)) {
      if (key === null) await store.deleteProviderKey(tx, { organizationId, provider })
      else
        await store.upsertProviderKey(tx, {
          organizationId,
          provider,
          keyBox: box.seal(key),
          last4: key.slice(-4),
        })
    }
    // Which providers were set or removed; never a key's value.
    const entries = Object.entries(update.keys)
    await recordAudit(tx, by, {
      organizationId,
      action: 'provider_keys.updated',
      target: { kind: 'organization', id: organizationId },
      details: {
        set: entries.filter(([, key]) => key !== null).map(([provider]) => provider),
        removed: entries.filter(([, key]) => key === null).map(([provider]) => provider),
      },
    })
  })
  return present(await store.listProviderKeys(ctx.db, organizationId))
}

/** The providers an organization has its own key for. */
export const providersWithKeys = async (ctx: AppContext, organizationId: string) =>
  new Set((await store.listProviderKeys(ctx.db, organizationId)).map((row) => row.provider))

/** An organization's keys for these providers, decrypted, for the adapters that call those providers. */
export const readProviderKeys = async (
  ctx: AppContext,
  { organizationId, providers }: { organizationId: string; providers: readonly string[] },
) => {
  const wanted = new Set(providers)
  const rows = (await store.listProviderKeys(ctx.db, organizationId)).filter((row) =>
    wanted.has(row.provider),
  )
  const box = createSecretBox(ctx.config.encryptionKey)
  return new Map(rows.map((row) => [row.provider, box.open(row.keyBox)]))
}

/** An organization's key for a provider, decrypted, for the adapters that call that provider. */
export const readProviderKey = async (
  ctx: AppContext,
  { organizationId, provider }: { organizationId: string; provider: string },
) => (await readProviderKeys(ctx, { organizationId, providers: [provider] })).get(provider) ?? null
