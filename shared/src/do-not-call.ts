import { z } from 'zod'
import { ZPageQuery } from './agents.ts'
import { ZIsoDateTime, ZPagination } from './common.ts'
import { ZE164 } from './phone-numbers.ts'

/**
 * An organization's do-not-call list: E.164 numbers nobody of the organization dials. Campaign
 * create and preview skip them, the dialer checks again before each dial, and POST /v1/calls
 * refuses them (409 do_not_call). `opt_out` (voice and text) adds the caller's number.
 */

/** How a number came onto the list: the API, an import, or the call or conversation that opted out. */
export const doNotCallSourceKinds = ['api', 'import', 'call', 'conversation'] as const
export const ZDoNotCallSourceKind = z.enum(doNotCallSourceKinds)
export type DoNotCallSourceKind = z.infer<typeof ZDoNotCallSourceKind>

const ZNote = z.string().trim().max(500, 'note must be at most 500 characters')

export const ZDoNotCallEntry = z
  .object({
    phoneNumber: ZE164,
    source: z.string().meta({
      description: '`api`, `import`, or the id of the call or conversation whose opt_out added it',
      example: 'api',
    }),
    sourceKind: ZDoNotCallSourceKind,
    note: z.string().nullable(),
    createdAt: ZIsoDateTime,
  })
  .meta({ id: 'DoNotCallEntry' })
export type DoNotCallEntry = z.infer<typeof ZDoNotCallEntry>

export const ZListDoNotCallQuery = ZPageQuery.extend({
  phoneNumber: ZE164.optional().meta({ description: 'Only this number (is it listed?)' }),
})
export type ListDoNotCallQuery = z.infer<typeof ZListDoNotCallQuery>

export const ZDoNotCallList = z
  .object({ success: z.literal(true), data: z.array(ZDoNotCallEntry), pagination: ZPagination })
  .meta({ id: 'DoNotCallList' })
export type DoNotCallList = z.infer<typeof ZDoNotCallList>

export const ZAddDoNotCall = z
  .object({ phoneNumber: ZE164, note: ZNote.optional() })
  .meta({ id: 'AddDoNotCallRequest' })
export type AddDoNotCall = z.infer<typeof ZAddDoNotCall>

export const ZDoNotCallResponse = z
  .object({
    success: z.literal(true),
    data: ZDoNotCallEntry,
    alreadyListed: z
      .boolean()
      .meta({ description: 'The number was on the list already: the entry is the one kept' }),
  })
  .meta({ id: 'DoNotCallResponse' })
export type DoNotCallResponse = z.infer<typeof ZDoNotCallResponse>

export const ZDoNotCallParams = z.object({ phoneNumber: ZE164 })

export const ZDoNotCallDeleted = z
  .object({ success: z.literal(true), data: z.object({ message: z.string() }) })
  .meta({ id: 'DoNotCallDeleted' })

/** Numbers one import may hold (JSON); a CSV is held to the batch CSV's limits. */
export const doNotCallLimits = { maxImportNumbers: 50_000 } as const

export const ZDoNotCallImportJson = z
  .object({ phoneNumbers: z.array(z.string().max(64)).min(1).max(doNotCallLimits.maxImportNumbers) })
  .meta({ id: 'DoNotCallImportRequest' })
export type DoNotCallImportJson = z.infer<typeof ZDoNotCallImportJson>

/** A number an import could not take: its CSV row (the header is row 1) or its place in `phoneNumbers` (from 1). */
export const ZDoNotCallInvalidRow = z
  .object({ row: z.number().int().min(1), phoneNumber: z.string() })
  .meta({ id: 'DoNotCallInvalidRow' })

export const ZDoNotCallImported = z
  .object({
    success: z.literal(true),
    data: z.object({
      added: z.number().int().min(0).meta({ example: 120 }),
      alreadyListed: z.number().int().min(0).meta({ example: 3 }),
      invalid: z.number().int().min(0).meta({ example: 1 }),
      /** The first invalid rows (at most 100), in file order. */
      invalidRows: z.array(ZDoNotCallInvalidRow),
    }),
  })
  .meta({ id: 'DoNotCallImported' })
export type DoNotCallImported = z.infer<typeof ZDoNotCallImported>
