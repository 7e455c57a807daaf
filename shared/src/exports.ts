import { z } from 'zod'
import { ZIsoDateTime } from './common.ts'

export const exportKinds = ['conversations', 'calls', 'batch_contacts', 'ledger', 'audit_log'] as const

/** POST /api/export: what to export, in which format, created in [from, to). */
export const ZCreateExport = z
  .object({
    kind: z.enum(exportKinds).meta({
      description:
        'conversations (each with its messages), calls (each with its transcript), batch_contacts (with outcomes), ledger or audit_log (owners and admins for the last two)',
    }),
    format: z.enum(['ndjson', 'csv']),
    from: z.iso.datetime({ offset: true }).optional().meta({ description: 'Records created at or after' }),
    to: z.iso.datetime({ offset: true }).optional().meta({ description: 'Records created before' }),
  })
  .meta({ id: 'CreateExportRequest' })
export type CreateExport = z.infer<typeof ZCreateExport>
export type ExportKind = (typeof exportKinds)[number]

export const ZExportIdParams = z.object({ id: z.string().min(1).max(100) })

export const ZExport = z
  .object({
    id: z.string(),
    kind: z.enum(exportKinds),
    format: z.enum(['ndjson', 'csv']),
    from: ZIsoDateTime.nullable(),
    to: ZIsoDateTime.nullable(),
    status: z.enum(['queued', 'running', 'completed', 'failed']),
    rowsTotal: z
      .number()
      .int()
      .meta({ description: 'Records (lines or CSV rows after the header) it will hold' }),
    rowsDone: z.number().int(),
    bytes: z.number().int(),
    error: z.string().nullable(),
    createdAt: ZIsoDateTime,
    completedAt: ZIsoDateTime.nullable(),
    expiresAt: ZIsoDateTime.meta({
      description: 'The file is deleted then (24 hours after it was asked for)',
    }),
    downloadUrl: z
      .string()
      .nullable()
      .meta({ description: 'Set once completed: GET it with the studio token' }),
  })
  .meta({ id: 'Export' })
export type Export = z.infer<typeof ZExport>
