import { z } from 'zod'
import { ZLedgerEntry } from './admin.ts'

/** GET /api/organizations/{orgId}/ledger: a page of the credit ledger, newest first (owners and admins). */
export const ZLedgerQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'The nextCursor of the previous page; absent for the first page' }),
})
export type LedgerQuery = z.infer<typeof ZLedgerQuery>

export const ZOrganizationLedger = z
  .object({
    balanceUsd: z.number().meta({ description: 'The credit balance now' }),
    entries: z.array(ZLedgerEntry),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as cursor for the next page; null: last page' }),
  })
  .meta({ id: 'OrganizationLedger' })
export type OrganizationLedger = z.infer<typeof ZOrganizationLedger>
