import type { ConversationDetail, ConversationList, ListConversationsQuery } from '@parley/shared'
import { presentAnalysis } from '../analysis/index.ts'
import { toUsd } from '../billing/index.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { checkCreatedRange, decodeCursor, encodeCursor } from '../http/cursor.ts'
import * as store from './store.ts'

const presentSummary = (row: store.SummaryRow) => ({
  id: row.id,
  agentId: row.agent_id,
  agentName: row.agent_name,
  status: row.status,
  userIdentifier: row.user_identifier,
  userVerified: row.user_verified,
  messageCount: Number(row.message_count),
  channels: [...row.channels].sort(),
  costUsd: toUsd(Number(row.cost_micros)),
  createdAt: row.created_at.toISOString(),
  lastActivityAt: row.last_activity_at.toISOString(),
  endedAt: row.ended_at?.toISOString() ?? null,
  durationSeconds: Math.max(
    0,
    Math.round(((row.ended_at ?? row.last_activity_at).getTime() - row.created_at.getTime()) / 1000),
  ),
  hasAnalysis: row.has_analysis,
})

export const listConversations = async (
  ctx: AppContext,
  { organizationId, query }: { organizationId: string; query: ListConversationsQuery },
): Promise<ConversationList> => {
  checkCreatedRange(query)
  const after = query.cursor ? decodeCursor(query.cursor) : null
  const rows = await store.listConversations(ctx.db, { organizationId, query, after })
  const page = rows.slice(0, query.limit)
  const last = page.at(-1)
  return {
    success: true,
    data: page.map(presentSummary),
    nextCursor:
      rows.length > query.limit && last ? encodeCursor({ createdAt: last.cursor_at, id: last.id }) : null,
  }
}

/** Another organization's conversation answers 404, as a missing one does. */
export const getConversation = async (
  ctx: AppContext,
  { organizationId, conversationId }: { organizationId: string; conversationId: string },
): Promise<ConversationDetail> => {
  const row = await store.findConversation(ctx.db, { organizationId, id: conversationId })
  if (!row) throw AppError.notFound('conversation')
  const [messages, toolCalls, calls] = await Promise.all([
    store.listMessages(ctx.db, row.id),
    store.listToolCalls(ctx.db, row.id),
    store.listCalls(ctx.db, row.id),
  ])
  return {
    success: true,
    data: {
      ...presentSummary(row),
      metadata: row.metadata,
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
      messages: messages.map((message) => ({
        id: message.id,
        role: message.role,
        content: message.content,
        channel: message.channel,
        callId: message.call_id,
        status: message.status,
        model: message.model,
        fallbackFrom: message.fallback_from,
        sources: message.sources,
        createdAt: message.created_at.toISOString(),
      })),
      toolCalls: toolCalls.map((call) => ({
        id: call.id,
        kind: call.kind,
        name: call.name,
        arguments: call.arguments,
        status: call.status,
        targetAgentId: call.target_agent_id,
        createdAt: call.created_at.toISOString(),
      })),
      analysis: presentAnalysis(row),
      calls: calls.map((call) => ({
        id: call.id,
        agentId: call.agent_id,
        status: call.status,
        durationSeconds: call.duration_seconds,
        costUsd: toUsd(Number(call.cost_micros)),
        startedAt: call.started_at.toISOString(),
      })),
    },
  }
}
