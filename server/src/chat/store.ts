import { type Selectable, sql } from 'kysely'
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres'
import { type AgentRow, agentFromJson } from '../agents/store.ts'
import type { Database, Executor } from '../db/index.ts'

export type ConversationStatus = 'active' | 'ended' | 'expired'

export type ConversationRow = {
  id: string
  organizationId: string
  agentId: string
  agentName: string
  /** The agent answering now: another one after a handoff. */
  currentAgentId: string
  apiKeyId: string | null
  userIdentifier: string | null
  metadata: Record<string, unknown>
  status: ConversationStatus
  inputTokens: number
  outputTokens: number
  costMicros: number
  createdAt: Date
  lastActivityAt: Date
  endedAt: Date | null
}

export type MessageRow = {
  id: string
  role: 'user' | 'assistant'
  content: string
  tokenCount: number | null
  status: 'complete' | 'partial' | 'stopped'
  createdAt: Date
}

const toConversation = (row: Selectable<Database['conversations']>): ConversationRow => ({
  id: row.id,
  organizationId: row.organization_id,
  agentId: row.agent_id,
  agentName: row.agent_name,
  currentAgentId: row.current_agent_id ?? row.agent_id,
  apiKeyId: row.api_key_id,
  userIdentifier: row.user_identifier,
  metadata: row.metadata,
  status: row.status,
  inputTokens: row.input_tokens,
  outputTokens: row.output_tokens,
  costMicros: Number(row.cost_micros),
  createdAt: row.created_at,
  lastActivityAt: row.last_activity_at,
  endedAt: row.ended_at,
})

export const findKeyStatus = async (db: Executor, keyId: string) =>
  (await db.selectFrom('api_keys').select('status').where('id', '=', keyId).executeTakeFirst())?.status

export const insertConversation = async (
  db: Executor,
  conversation: Pick<
    ConversationRow,
    'id' | 'organizationId' | 'agentId' | 'agentName' | 'apiKeyId' | 'userIdentifier' | 'metadata'
  >,
) => {
  await db
    .insertInto('conversations')
    .values({
      id: conversation.id,
      organization_id: conversation.organizationId,
      agent_id: conversation.agentId,
      current_agent_id: conversation.agentId,
      agent_name: conversation.agentName,
      api_key_id: conversation.apiKeyId,
      user_identifier: conversation.userIdentifier,
      metadata: JSON.stringify(conversation.metadata),
      created_at: new Date(),
      last_activity_at: new Date(),
      ended_at: null,
    })
    .execute()
}

export const findConversation = async (db: Executor, id: string) => {
  const row = await db.selectFrom('conversations').selectAll().where('id', '=', id).executeTakeFirst()
  return row ? toConversation(row) : undefined
}

/** What a new reply needs before it can start, read together by `findReplyContext`. */
export type ReplyContext = {
  conversation: ConversationRow
  /** The credit balance of the conversation's organization. */
  balanceMicros: number
  /** The agent answering now, if it still exists in the conversation's organization. */
  agent: AgentRow | undefined
  /** The newest `historyLimit` messages, oldest first. */
  history: Pick<MessageRow, 'role' | 'content'>[]
}

/**
 * The conversation, its organization's balance, its current agent and its latest messages in one
 * statement: each read is a round trip before the reply's first chunk, and there are four.
 */
export const findReplyContext = async (
  db: Executor,
  { id, historyLimit }: { id: string; historyLimit: number },
): Promise<ReplyContext | undefined> => {
  const row = await db
    .selectFrom('conversations as c')
    .innerJoin('organizations as o', 'o.id', 'c.organization_id')
    .selectAll('c')
    .select((eb) => [
      'o.credit_balance_micros as balance_micros',
      jsonObjectFrom(
        eb
          .selectFrom('agents as a')
          .selectAll('a')
          .whereRef('a.organization_id', '=', 'c.organization_id')
          .where('a.id', '=', eb.fn.coalesce('c.current_agent_id', 'c.agent_id')),
      ).as('agent'),
      jsonArrayFrom(
        eb
          .selectFrom('chat_messages as m')
          .select(['m.role', 'm.content'])
          .whereRef('m.conversation_id', '=', 'c.id')
          .orderBy('m.created_at', 'desc')
          .orderBy('m.id', 'desc')
          .limit(historyLimit),
      ).as('history'),
    ])
    .where('c.id', '=', id)
    .executeTakeFirst()
  if (!row) return undefined
  const { balance_micros, agent, history, ...conversation } = row
  return {
    conversation: toConversation(conversation),
    balanceMicros: Number(balance_micros),
    agent: agent ? agentFromJson(agent as unknown as Record<string, unknown>) : undefined,
    history: history.reverse(),
  }
}

/**
 * Takes the session's one reply slot and stores the user's message, in one statement: one round
 * trip before the reply can start, and never a message without its claim. A claim older than
 * `staleBefore` belongs to an instance that died mid-reply and is taken over rather than blocking
 * the session for good. False when another reply holds the slot (or the session is not active).
 */
export const claimReplyWithMessage = async (
  db: Executor,
  {
    id,
    staleBefore,
    lastActivityAt,
    message,
  }: {
    id: string
    staleBefore: Date
    /** As the caller read it: any reply or end since then changed it, and the claim fails. */
    lastActivityAt: Date
    message: { id: string; content: string; tokenCount: number }
  },
) => {
  const now = new Date()
  const inserted = await sql<{ id: string }>`
    with claimed as (
      update conversations set reply_started_at = ${now}, last_activity_at = ${now}
      where id = ${id} and status = 'active'
        and date_trunc('milliseconds', last_activity_at) = ${lastActivityAt}
        and (reply_started_at is null or reply_started_at < ${staleBefore})
      returning id
    )
    insert into chat_messages (id, conversation_id, role, content, token_count, status, created_at)
    select ${message.id}, claimed.id, 'user', ${message.content}, ${message.tokenCount}, 'complete', ${now}
    from claimed
    returning id`.execute(db)
  return inserted.rows.length > 0
}

export const releaseReply = async (db: Executor, id: string) => {
  await db.updateTable('conversations').set({ reply_started_at: null }).where('id', '=', id).execute()
}

/** Adds one reply's metered usage to the session's totals and frees the reply slot. */
export const addReplyUsage = async (
  db: Executor,
  usage: { id: string; inputTokens: number; outputTokens: number; costMicros: number },
) => {
  await db
    .updateTable('conversations')
    .set({
      input_tokens: sql`input_tokens + ${usage.inputTokens}`,
      output_tokens: sql`output_tokens + ${usage.outputTokens}`,
      cost_micros: sql`cost_micros + ${usage.costMicros}`,
      reply_started_at: null,
      last_activity_at: new Date(),
    })
    .where('id', '=', usage.id)
    .execute()
}

export const setCurrentAgent = async (db: Executor, { id, agentId }: { id: string; agentId: string }) => {
  await db.updateTable('conversations').set({ current_agent_id: agentId }).where('id', '=', id).execute()
}

/**
 * Moves an active conversation to ended or expired. Only one caller gets the row back, so the end
 * effects run once however many ends and expiry jobs race.
 */
export const closeConversation = async (
  db: Executor,
  { id, status, idleBefore }: { id: string; status: 'ended' | 'expired'; idleBefore?: Date },
) => {
  let query = db
    .updateTable('conversations')
    .set({ status, ended_at: new Date(), reply_started_at: null })
    .where('id', '=', id)
    .where('status', '=', 'active')
  if (idleBefore) query = query.where('last_activity_at', '<', idleBefore)
  const row = await query.returningAll().executeTakeFirst()
  return row ? toConversation(row) : undefined
}

export const insertMessage = async (
  db: Executor,
  message: Omit<MessageRow, 'createdAt'> & { conversationId: string },
) => {
  await db
    .insertInto('chat_messages')
    .values({
      id: message.id,
      conversation_id: message.conversationId,
      role: message.role,
      content: message.content,
      token_count: message.tokenCount,
      status: message.status,
      created_at: new Date(),
    })
    .execute()
}

const messageColumns = [
  'id',
  'role',
  'content',
  'token_count as tokenCount',
  'status',
  'created_at as createdAt',
] as const

/** Oldest first; ids are ULIDs, so they order messages of the same millisecond. */
export const listMessages = (
  db: Executor,
  { conversationId, limit, offset }: { conversationId: string; limit: number; offset: number },
): Promise<MessageRow[]> =>
  db
    .selectFrom('chat_messages')
    .select(messageColumns)
    .where('conversation_id', '=', conversationId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute()

export const countMessages = async (db: Executor, conversationId: string) => {
  const row = await db
    .selectFrom('chat_messages')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('conversation_id', '=', conversationId)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}
