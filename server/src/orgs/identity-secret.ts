import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IdentitySecret } from '@parley/shared'
import { type AuditBy, recordAudit } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { createSecretBox } from '../crypto/secret-box.ts'
import { AppError } from '../http/app-error.ts'
import type { StudioActor } from '../http/types.ts'
import { roleIn } from './service.ts'
import * as store from './store.ts'

/**
 * Each organization's identity secret: its own server signs a visitor's user_identifier with it
 * (user_hash = hex HMAC-SHA256, as Intercom's and Chatwoot's identity verification do), so a
 * widget-key session's identifier is trusted only with that proof. Made when first asked for,
 * sealed at rest (crypto/secret-box), shown to owners and admins, rotated by them (the old one
 * stops working at once: nothing caches it).
 */

/** 32 random bytes, base64url: 43 characters. */
const newSecret = () => randomBytes(32).toString('base64url')

const assertManager = async (ctx: AppContext, actor: StudioActor, organizationId: string) => {
  const role = await roleIn(ctx, actor, organizationId)
  if (role === 'member')
    throw AppError.forbidden('Only owners and admins can see or rotate the identity secret')
}

const present = (ctx: AppContext, row: { sealed: string; createdAt: Date }): IdentitySecret => ({
  secret: createSecretBox(ctx.config.encryptionKey).open(row.sealed),
  createdAt: row.createdAt.toISOString(),
})

export const readIdentitySecret = async (ctx: AppContext, actor: StudioActor, organizationId: string) => {
  await assertManager(ctx, actor, organizationId)
  let row = await store.findIdentitySecret(ctx.db, organizationId)
  if (!row) {
    const sealed = createSecretBox(ctx.config.encryptionKey).seal(newSecret())
    await store.storeIdentitySecret(ctx.db, { organizationId, sealed, replace: false })
    row = await store.findIdentitySecret(ctx.db, organizationId)
  }
  if (!row) throw AppError.notFound('organization')
  return present(ctx, row)
}

export const rotateIdentitySecret = async (
  ctx: AppContext,
  actor: StudioActor,
  organizationId: string,
  by: AuditBy,
) => {
  await assertManager(ctx, actor, organizationId)
  const sealed = createSecretBox(ctx.config.encryptionKey).seal(newSecret())
  await ctx.db.transaction().execute(async (tx) => {
    await store.storeIdentitySecret(tx, { organizationId, sealed, replace: true })
    await recordAudit(tx, by, {
      organizationId,
      action: 'identity_secret.rotated',
      target: { kind: 'organization', id: organizationId },
    })
  })
  const row = await store.findIdentitySecret(ctx.db, organizationId)
  if (!row) throw AppError.notFound('organization')
  ctx.logger.info({ organizationId, userId: actor.userId }, 'identity secret rotated')
  return present(ctx, row)
}

/** The user_hash a server holding `secret` computes for `userIdentifier`. */
export const userHashOf = (secret: string, userIdentifier: string) =>
  createHmac('sha256', secret).update(userIdentifier, 'utf8').digest('hex')

/**
 * Whether `userHash` proves `userIdentifier` for the organization, compared in constant time. An
 * organization that never made its secret has nothing that could prove it: false.
 */
export const isUserHashValid = async (
  ctx: AppContext,
  {
    organizationId,
    userIdentifier,
    userHash,
  }: { organizationId: string; userIdentifier: string; userHash: string },
) => {
  const row = await store.findIdentitySecret(ctx.db, organizationId)
  if (!row) return false
  const expected = Buffer.from(
    userHashOf(createSecretBox(ctx.config.encryptionKey).open(row.sealed), userIdentifier),
  )
  const given = Buffer.from(userHash.toLowerCase())
  return given.length === expected.length && timingSafeEqual(given, expected)
}
