import { z } from 'zod'

const days = z
  .number()
  .int()
  .min(1)
  .max(3650)
  .nullable()
  .meta({ description: 'Days to keep (1-3650); null: keep forever (the default)' })

/** How long an organization keeps its records; a daily job deletes what is older. */
export const ZRetention = z
  .object({
    conversationDays: days.meta({
      description: 'Conversations with their messages; null: keep',
      example: 365,
    }),
    callDays: days.meta({
      description: 'Calls with their transcripts (ended calls only); null: keep',
      example: 90,
    }),
    exportDays: days.meta({ description: 'Finished exports with their files; null: keep', example: 7 }),
  })
  .meta({ id: 'Retention' })
export type Retention = z.infer<typeof ZRetention>

/** PATCH /api/organizations/{orgId}/retention: any of the three; the others keep their value. */
export const ZUpdateRetention = ZRetention.partial()
  .refine(
    (update) => Object.keys(update).length > 0,
    'give at least one of conversationDays, callDays, exportDays',
  )
  .meta({ id: 'UpdateRetention' })
export type UpdateRetention = z.infer<typeof ZUpdateRetention>
