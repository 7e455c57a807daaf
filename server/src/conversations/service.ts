import type { ConversationDetail, ConversationList, ListConversationsQuery } from '@parley/shared'
import { toUsd } from '../billing/service.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import * as store from './store.ts'

/** An opaque cursor: the last row's creation time and id, base64url. */
const encodeCursor = ({ createdAt, id }: store.Cursor) =>
  Buffer.from(JSON.stringify([createdAt.toISOString(), id])).toString('base64url')

const decodeCursor = (cursor: string): store.Cursor => {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[]
    const date = new Date(String(createdAt))
    if (typeof id === 'string' && id.length > 0 && id.length <= 100 && !Number.isNaN(date.getTime()))
      return { createdAt: date, id }
  } catch {
    // Falls through to the one answer for every malformed cursor.
  }
  throw AppError.badRequest('cursor: is not a cursor this API gave (use nextCursor as it came)')
}

const presentSummary = (row: store.SummaryRow) => ({
  id: row.id,
  agentId: row.agent_id,
  agentName: row.agent_name,
  status: row.status,
  userIdentifier: row.user_identifier,
  messageCount: Number(row.message_count),
  channels: [...row.channels].sort(),
  costUsd: toUsd(Number(row.cost_micros)),
  createdAt: row.created_at.toISOString(),
  lastActivityAt: row.last_activity_at.toISOString(),
  endedAt: row.ended_at?.toISOString() ?? null,
})

export const listConversations = async (
  ctx: AppContext,
  { organizationId, query }: { organizationId: string; query: ListConversationsQuery },
): Promise<ConversationList> => {
  if (query.createdFrom && query.createdTo && new Date(query.createdFrom) >= new Date(query.createdTo))
    throw AppError.badRequest('createdTo: must be later than createdFrom')
  const after = query.cursor ? decodeCursor(query.cursor) : null
  const rows = await store.listConversations(ctx.db, { organizationId, query, after })
  const page = rows.slice(0, query.limit)
  const last = page.at(-1)
  return {
    success: true,
    data: page.map(presentSummary),
    nextCursor:
      rows.length > query.limit && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
  }
}

/** Another organization's conversation answers 404, as a missing one does. */
export const getConversation = async (
  ctx: AppContext,
  { organizationId, conversationId }: { organizationId: string; conversationId: string },
): Promise<ConversationDetail> => {
  const row = await store.findConversation(ctx.db, { organizationId, id: conversationId })
  if (!row) throw AppError.notFound('conversation')
  const [messages, calls] = await Promise.all([
    store.listMessages(ctx.db, row.id),
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
        createdAt: message.created_at.toISOString(),
      })),
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
