import { z } from 'zod'
import { ZCallOutcome } from './calls.ts'

/**
 * GET /v1/analytics: per agent and per day (UTC), computed from the conversations and calls.
 * Without `to` the range ends today; without `from` it starts 29 days before `to` (30 days).
 */
export const ZAnalyticsQuery = z.object({
  from: z.iso
    .date()
    .optional()
    .meta({ description: 'First day (UTC, YYYY-MM-DD), included; default: 29 days before to' }),
  to: z.iso.date().optional().meta({
    description: 'Last day (UTC, YYYY-MM-DD), included; at most 366 days after from; default: today',
  }),
  agentId: z.string().min(1).max(100).optional(),
})
export type AnalyticsQuery = z.infer<typeof ZAnalyticsQuery>

const ZAnalyticsRow = z.object({
  date: z.iso.date(),
  agentId: z.string(),
  conversations: z.number().int(),
  messages: z.number().int(),
  replyCostUsd: z.number(),
  averageFirstReplySeconds: z.number().nullable().meta({
    description: 'From the first typed message to the first reply stored, averaged over conversations',
  }),
  calls: z.number().int(),
  callMinutes: z.number(),
  callCostUsd: z.number(),
  averageCallSeconds: z.number().nullable(),
  outcomes: z.record(z.string(), z.number().int()).meta({
    description: 'Calls by how they ended (end reason), and conversations by status',
  }),
  callOutcomes: z.partialRecord(ZCallOutcome, z.number().int()).meta({
    description: 'Closed calls by outcome (completed, voicemail_left, busy, …); outcomes with none left out',
  }),
})

export const ZAnalytics = z
  .object({ success: z.literal(true), data: z.array(ZAnalyticsRow) })
  .meta({ id: 'Analytics' })
export type Analytics = z.infer<typeof ZAnalytics>
