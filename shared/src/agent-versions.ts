import { z } from 'zod'
import { ZIsoDateTime, ZPagination } from './common.ts'

/**
 * Agent versions. Every setting an agent has (its stored fields but identity, ownership, times and
 * the webhook secret) is snapshotted generically, so a field added later is versioned too; the
 * settings use the studio's field names (sysMsg, languages, ...).
 */
export const ZAgentSettings = z
  .record(z.string(), z.unknown())
  .meta({ id: 'AgentSettings', description: 'Every setting of an agent, by its studio field name' })
export type AgentSettings = z.infer<typeof ZAgentSettings>

/** A custom function's definition as it was published (its headers are secrets and never shown). */
export const ZVersionFunction = z
  .object({
    id: z.string(),
    name: z.string(),
    label: z.string(),
    description: z.string(),
    endpoint: z.string(),
    method: z.string().meta({ example: 'POST' }),
    parameters: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'VersionFunction' })
export type VersionFunction = z.infer<typeof ZVersionFunction>

export const ZAgentVersionSummary = z
  .object({
    number: z.number().int().meta({ example: 3 }),
    publishedBy: z.string().nullable().meta({ example: '01JD4MJ8E0G2J4L6N8Q0S2U4W6' }),
    note: z.string().meta({ example: 'Shorter greeting' }),
    createdAt: ZIsoDateTime,
    /** The version every session runs on (the highest). */
    published: z.boolean().meta({ example: true }),
  })
  .meta({ id: 'AgentVersionSummary' })
export type AgentVersionSummary = z.infer<typeof ZAgentVersionSummary>

export const ZAgentVersion = ZAgentVersionSummary.extend({
  settings: ZAgentSettings,
  functions: z.array(ZVersionFunction),
}).meta({ id: 'AgentVersion' })
export type AgentVersion = z.infer<typeof ZAgentVersion>

/** One difference: a setting (`settings.<field>`) or a function (`functions.<name>`), null where absent. */
export const ZVersionChange = z
  .object({
    path: z.string().meta({ example: 'settings.sysMsg' }),
    before: z.unknown().meta({ example: 'You help shoppers.' }),
    after: z.unknown().meta({ example: 'You help shoppers in two sentences.' }),
  })
  .meta({ id: 'VersionChange' })
export type VersionChange = z.infer<typeof ZVersionChange>

export const ZAgentVersionDiff = z
  .object({
    /** The older side: a version number. */
    from: z.number().int().meta({ example: 2 }),
    /** The newer side. */
    to: z.number().int().meta({ example: 3 }),
    changes: z.array(ZVersionChange),
  })
  .meta({ id: 'AgentVersionDiff' })
export type AgentVersionDiff = z.infer<typeof ZAgentVersionDiff>

/** The draft: what the studio edits and publishing makes live. */
export const ZAgentDraft = z
  .object({
    /** The published version the draft differs from. */
    basedOn: z.number().int().meta({ example: 3 }),
    settings: ZAgentSettings,
    /** What publishing would change (empty: the draft equals the published version). */
    changes: z.array(ZVersionChange),
    updatedAt: ZIsoDateTime.nullable(),
  })
  .meta({ id: 'AgentDraft' })
export type AgentDraft = z.infer<typeof ZAgentDraft>

const ZVersionNumber = z.coerce
  .number()
  .int('must be a whole number')
  .min(1, 'must be at least 1')
  .max(1_000_000, 'must be at most 1000000')

export const ZAgentVersionParams = z.object({
  agentId: z.string().min(1).max(100),
  version: ZVersionNumber.meta({ example: 3 }),
})
export type AgentVersionParams = z.infer<typeof ZAgentVersionParams>

export const ZAgentVersionsQuery = z.object({
  page: z.coerce.number().int('page must be a whole number').min(1, 'page must be at least 1').default(1),
  limit: z.coerce
    .number()
    .int('limit must be a whole number')
    .min(1, 'limit must be between 1 and 100')
    .max(100, 'limit must be between 1 and 100')
    .default(20),
})

/** `against`: the version to compare with (default: the one before). */
export const ZAgentVersionDiffQuery = z.object({ against: ZVersionNumber.meta({ example: 2 }).optional() })

export const ZPublishAgent = z.object({
  note: z
    .string()
    .trim()
    .max(500, 'note must be at most 500 characters')
    .default('')
    .meta({ example: 'Shorter greeting' }),
})
export type PublishAgent = z.infer<typeof ZPublishAgent>

export const ZAgentVersionList = z
  .object({ success: z.literal(true), data: z.array(ZAgentVersionSummary), pagination: ZPagination })
  .meta({ id: 'AgentVersionList' })
export const ZAgentVersionResponse = z
  .object({ success: z.literal(true), data: ZAgentVersion })
  .meta({ id: 'AgentVersionResponse' })
export const ZAgentVersionDiffResponse = z
  .object({ success: z.literal(true), data: ZAgentVersionDiff })
  .meta({ id: 'AgentVersionDiffResponse' })
export const ZAgentDraftResponse = z
  .object({ success: z.literal(true), data: ZAgentDraft })
  .meta({ id: 'AgentDraftResponse' })
