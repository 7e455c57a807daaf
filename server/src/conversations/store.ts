import type { ListConversationsQuery } from '@parley/shared'
import { sql } from 'kysely'
import { atExactTime, exactTime } from '../db/exact-time.ts'
import type { Executor } from '../db/index.ts'

export type AnalysisColumns = {
  analysis_summary: string | null
  analysis_sentiment: 'positive' | 'neutral' | 'negative' | null
  analysis_outcome: string | null
  analysis_data: Record<string, unknown> | null
  analyzed_at: Date | null
}

import type { Cursor } from '../http/cursor.ts'

const summaryColumns = sql`c.id, c.agent_id, c.agent_name, c.status, c.user_identifier, c.user_verified, c.cost_micros,
  c.created_at, ${exactTime('c.created_at')} as cursor_at, c.last_activity_at, c.ended_at, c.analyzed_at is not null as has_analysis,
  c.message_count,
  (select coalesce(json_agg(distinct m.channel), '[]'::json) from chat_messages m
    where m.conversation_id = c.id) as channels`

export type SummaryRow = {
  id: string
  agent_id: string
  agent_name: string
  status: 'active' | 'ended' | 'expired'
  user_identifier: string | null
  user_verified: boolean
  cost_micros: string | number
  created_at: Date
  /** created_at to the microsecond, for the cursor. */
  cursor_at: string
  last_activity_at: Date
  ended_at: Date | null
  has_analysis: boolean
  message_count: string | number
  channels: Array<'text' | 'voice'>
}

/**
 * One page of an organization's conversations, newest first (keyset: creation time, then id),
 * `limit + 1` rows so the caller knows whether another page follows.
 */
export const listConversations = async (
  db: Executor,
  {
    organizationId,
    query,
    after,
  }: { organizationId: string; query: ListConversationsQuery; after: Cursor | null },
) => {
  const filters = [sql`c.organization_id = ${organizationId}`]
  if (after) filters.push(sql`(c.created_at, c.id) < (${atExactTime(after.createdAt)}, ${after.id})`)
  if (query.agentId) filters.push(sql`c.agent_id = ${query.agentId}`)
  if (query.status) filters.push(sql`c.status = ${query.status}`)
  if (query.userIdentifier) filters.push(sql`c.user_identifier = ${query.userIdentifier}`)
  if (query.createdFrom) filters.push(sql`c.created_at >= ${new Date(query.createdFrom)}`)
  if (query.createdTo) filters.push(sql`c.created_at < ${new Date(query.createdTo)}`)
  if (query.hasAnalysis !== undefined)
    filters.push(query.hasAnalysis ? sql`c.analyzed_at is not null` : sql`c.analyzed_at is null`)
  if (query.channel)
    filters.push(
      sql`exists (select 1 from chat_messages m where m.conversation_id = c.id and m.channel = ${query.channel})`,
    )
  if (query.q)
    filters.push(sql`exists (select 1 from chat_messages m where m.conversation_id = c.id
      and to_tsvector('simple', m.content) @@ plainto_tsquery('simple', ${query.q}))`)
  const { rows } = await sql<SummaryRow>`
    select ${summaryColumns} from conversations c
    where ${sql.join(filters, sql` and `)}
    order by c.created_at desc, c.id desc
    limit ${query.limit + 1}`.execute(db)
  return rows
}

export const findConversation = async (
  db: Executor,
  { organizationId, id }: { organizationId: string; id: string },
) => {
  const { rows } = await sql<
    SummaryRow & {
      metadata: Record<string, unknown>
      input_tokens: number
      output_tokens: number
    } & AnalysisColumns
  >`
    select ${summaryColumns}, c.metadata, c.input_tokens, c.output_tokens, c.analysis_summary,
      c.analysis_sentiment, c.analysis_outcome, c.analysis_data, c.analyzed_at
    from conversations c
    where c.organization_id = ${organizationId} and c.id = ${id}`.execute(db)
  return rows[0]
}

/** Every message, oldest first (ids are ULIDs: they order messages of one millisecond). */
export const listMessages = (db: Executor, conversationId: string) =>
  db
    .selectFrom('chat_messages')
    .select([
      'id',
      'role',
      'content',
      'channel',
      'call_id',
      'status',
      'model',
      'fallback_from',
      'sources',
      'created_at',
    ])
    .where('conversation_id', '=', conversationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()

/** The tools the agent called during the conversation's replies, and its handoffs, in order. */
export const listToolCalls = (db: Executor, conversationId: string) =>
  db
    .selectFrom('chat_tool_calls')
    .selectAll()
    .where('conversation_id', '=', conversationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()

/** The calls that continued the conversation (one conversation across text and voice). */
export const listCalls = (db: Executor, conversationId: string) =>
  db
    .selectFrom('calls')
    .select(['id', 'agent_id', 'status', 'duration_seconds', 'cost_micros', 'started_at'])
    .where('conversation_id', '=', conversationId)
    .orderBy('started_at')
    .execute()

/** Records a privacy deletion (never the content), inside the deleting transaction. */
export const logDeletion = (
  db: Executor,
  entry: {
    id: string
    organizationId: string
    kind: 'conversation' | 'call'
    targetId: string
    keyId: string | null
    userId: string | null
  },
) =>
  db
    .insertInto('deletions')
    .values({
      id: entry.id,
      organization_id: entry.organizationId,
      kind: entry.kind,
      target_id: entry.targetId,
      deleted_by_key_id: entry.keyId,
      deleted_by_user_id: entry.userId,
      created_at: new Date(),
    })
    .execute()

export const listDeletions = (db: Executor, organizationId: string) =>
  db
    .selectFrom('deletions')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(500)
    .execute()
