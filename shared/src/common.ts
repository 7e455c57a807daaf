import { z } from 'zod'

/** ULIDs: 26 characters of Crockford base32. */
export const ZUlid = z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a ULID')

export const ZIsoDateTime = z.string().meta({ format: 'date-time' })

/** The `pagination` block of every v1 list answer. */
/** A keyset page's query fields: how many, and where the previous page ended. */
export const cursorPageFields = {
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'The nextCursor of the previous page; absent for the first page' }),
}

export const ZPagination = z.object({ page: z.number().int(), total: z.number().int(), hasNext: z.boolean() })

export const ZEmail = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email({ message: 'must be a valid email address' }))

export const roles = ['owner', 'admin', 'member'] as const
export const ZRole = z.enum(roles)
export type Role = z.infer<typeof ZRole>

export const tiers = ['free', 'pro', 'enterprise'] as const
export const ZTier = z.enum(tiers)
export type Tier = z.infer<typeof ZTier>

/** Requests per minute on /v1/* for each tier; enterprise is set per organization. */
export const tierRateLimits = { free: 60, pro: 300, enterprise: 1000 } as const satisfies Record<Tier, number>

export const ZHealth = z.object({ status: z.literal('ok') }).meta({ id: 'Health' })
export const ZReadiness = z
  .object({ status: z.enum(['ok', 'unavailable']), checks: z.record(z.string(), z.enum(['ok', 'failed'])) })
  .meta({ id: 'Readiness' })
