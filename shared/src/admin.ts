import { z } from 'zod'
import { ZOrganizationSummary } from './accounts.ts'
import { ZTier } from './common.ts'

export const ZAdminOrgParams = z.object({ id: z.string().min(1) })

export const ZAdminOrganizationList = z
  .object({ success: z.literal(true), data: z.array(ZOrganizationSummary) })
  .meta({ id: 'AdminOrganizationList' })

export const ZAdminUpdateOrganization = z
  .object({
    tier: ZTier.optional(),
    rateLimitPerMinute: z.number().int().min(1).max(1_000_000).nullable().optional().meta({
      description: 'Custom per-minute limit (enterprise); null restores the tier default',
    }),
  })
  .refine((body) => body.tier !== undefined || body.rateLimitPerMinute !== undefined, {
    message: 'give tier or rateLimitPerMinute',
  })
  .meta({ id: 'AdminUpdateOrganizationRequest' })
export type AdminUpdateOrganization = z.infer<typeof ZAdminUpdateOrganization>

/** Credits move in micro-USD; a request may name at most six decimals of a dollar. */
export const ZAdminGrantCredits = z
  .object({
    amountUsd: z
      .number()
      .refine((n) => n !== 0, 'must not be zero')
      .refine((n) => Math.abs(n) <= 1_000_000, 'must be at most 1,000,000 USD either way')
      .refine(
        (n) => Number.isInteger(Math.round(n * 1e6)) && Math.abs(n * 1e6 - Math.round(n * 1e6)) < 1e-6,
        {
          message: 'must have at most six decimals',
        },
      )
      .meta({
        description:
          'Positive grants credit (an overdrawn balance counts it from below zero); negative corrects it down (never below zero)',
      }),
    reason: z.string().trim().min(1).max(200),
  })
  .meta({ id: 'AdminGrantCreditsRequest' })
export type AdminGrantCredits = z.infer<typeof ZAdminGrantCredits>

export const ZLedgerEntry = z
  .object({
    id: z.string(),
    amountUsd: z.number(),
    balanceAfterUsd: z.number(),
    kind: z.string(),
    reason: z.string(),
    createdAt: z.string(),
  })
  .meta({ id: 'LedgerEntry' })
export type LedgerEntry = z.infer<typeof ZLedgerEntry>

export const ZAdminOrganization = z
  .object({ success: z.literal(true), data: ZOrganizationSummary })
  .meta({ id: 'AdminOrganization' })

export const ZAdminCreditResult = z
  .object({
    success: z.literal(true),
    data: z.object({ entry: ZLedgerEntry, organization: ZOrganizationSummary }),
  })
  .meta({ id: 'AdminCreditResult' })
