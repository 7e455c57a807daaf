import { z } from 'zod'
import { ZLedgerEntry } from './admin.ts'
import { cursorPageFields } from './common.ts'

/** GET /api/organizations/{orgId}/ledger: a page of the credit ledger, newest first (owners and admins). */
export const ZLedgerQuery = z.object({
  ...cursorPageFields,
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
