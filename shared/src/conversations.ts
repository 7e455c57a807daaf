import { z } from 'zod'
import { cursorPageFields, ZIsoDateTime } from './common.ts'
import { ZReplySource } from './knowledge.ts'

/**
 * The filters conversations and calls share: creation time, whether post-call analysis is there,
 * and words said (PostgreSQL full-text search over `searched`).
 */
export const recordFilters = (searched: string) => ({
  createdFrom: z.iso.datetime({ offset: true }).optional(),
  createdTo: z.iso.datetime({ offset: true }).optional(),
  hasAnalysis: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .meta({ description: 'true: only those analysed; false: only those not (yet) analysed' }),
  q: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: `Words ${searched} contains (PostgreSQL full-text search)` }),
})

/** GET /v1/conversations: newest first, a page at a time, narrowed by any of the filters. */
export const ZListConversationsQuery = z.object({
  ...cursorPageFields,
  agentId: z.string().min(1).max(100).optional(),
  status: z.enum(['active', 'ended', 'expired']).optional(),
  channel: z.enum(['text', 'voice']).optional().meta({
    description: 'Conversations with at least one message typed (text) or spoken in a call (voice)',
  }),
  userIdentifier: z.string().min(1).max(200).optional(),
  ...recordFilters('any message of the conversation'),
})
export type ListConversationsQuery = z.infer<typeof ZListConversationsQuery>

export const ZRecordDeleted = z
  .object({ success: z.literal(true), data: z.object({ id: z.string(), deleted: z.literal(true) }) })
  .meta({ id: 'RecordDeleted' })

export const ZDeletionList = z
  .object({
    success: z.literal(true),
    data: z.array(
      z.object({
        id: z.string(),
        kind: z.enum(['conversation', 'call']),
        targetId: z.string(),
        deletedByKeyId: z
          .string()
          .nullable()
          .meta({ description: 'The API key that asked; null from the studio' }),
        deletedByUserId: z
          .string()
          .nullable()
          .meta({ description: 'The member whose studio session asked; null through an API key' }),
        createdAt: ZIsoDateTime,
      }),
    ),
  })
  .meta({ id: 'DeletionList' })

/** Post-call analysis, written by the agent's model after a chat or a call ends. */
export const ZAnalysis = z
  .object({
    summary: z.string(),
    sentiment: z.enum(['positive', 'neutral', 'negative']),
    outcome: z.string(),
    data: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: "The values of the agent's analysisSchema; null without one" }),
    analyzedAt: ZIsoDateTime,
  })
  .meta({ id: 'Analysis' })
export type AnalysisResult = z.infer<typeof ZAnalysis>

export const ZConversationIdParams = z.object({ conversationId: z.string().min(1).max(100) })

const ZConversationSummary = z.object({
  id: z.string(),
  agentId: z.string(),
  agentName: z.string(),
  status: z.enum(['active', 'ended', 'expired']),
  userIdentifier: z
    .string()
    .nullable()
    .meta({ description: 'As the session’s creator gave it, proven or not' }),
  userVerified: z.boolean().meta({
    description:
      'The identifier was proven (a secret key, a studio session, or a widget key with a valid user_hash): only then does it name the person’s memory',
  }),
  messageCount: z.number().int(),
  channels: z.array(z.enum(['text', 'voice'])),
  costUsd: z.number().meta({ description: 'The replies’ cost; calls are billed on their own (see calls)' }),
  createdAt: ZIsoDateTime,
  lastActivityAt: ZIsoDateTime,
  endedAt: ZIsoDateTime.nullable(),
  durationSeconds: z
    .number()
    .int()
    .meta({ description: 'From creation to the end (or to the last activity while active)' }),
  hasAnalysis: z.boolean(),
})

export const ZConversationList = z
  .object({
    success: z.literal(true),
    data: z.array(ZConversationSummary),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as cursor for the next page; null: last page' }),
  })
  .meta({ id: 'ConversationList' })
export type ConversationList = z.infer<typeof ZConversationList>

export const ZConversationMessage = z.object({
  id: z.string(),
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  channel: z.enum(['text', 'voice']),
  callId: z.string().nullable(),
  status: z.enum(['complete', 'partial', 'stopped']),
  model: z.string().nullable(),
  fallbackFrom: z.string().nullable(),
  sources: z.array(ZReplySource).nullable().meta({
    description: 'Assistant replies: the knowledge sources the reply was given; null: none',
  }),
  createdAt: ZIsoDateTime,
})

export const ZConversationDetail = z
  .object({
    success: z.literal(true),
    data: ZConversationSummary.extend({
      metadata: z.record(z.string(), z.unknown()),
      inputTokens: z.number().int(),
      outputTokens: z.number().int(),
      messages: z.array(ZConversationMessage),
      toolCalls: z
        .array(
          z.object({
            id: z.string(),
            kind: z.enum(['function', 'end_call', 'handoff', 'unknown']),
            name: z.string(),
            arguments: z.unknown(),
            status: z.enum(['completed', 'failed']),
            targetAgentId: z
              .string()
              .nullable()
              .meta({ description: 'A handoff: the agent that answered from then on' }),
            createdAt: ZIsoDateTime,
          }),
        )
        .meta({ description: 'The tools the agent called and its handoffs, in order' }),
      analysis: ZAnalysis.nullable(),
      calls: z.array(
        z.object({
          id: z.string(),
          agentId: z.string(),
          status: z.enum(['active', 'ended', 'failed']),
          durationSeconds: z.number().int().nullable(),
          costUsd: z.number(),
          startedAt: ZIsoDateTime,
        }),
      ),
    }),
  })
  .meta({ id: 'ConversationDetail' })
export type ConversationDetail = z.infer<typeof ZConversationDetail>
