import { type Selectable, sql } from 'kysely'
import { type AgentRow, agentFromJson } from '../agents/store.ts'
import type { Database, Executor } from '../db/index.ts'
import { isDeadInstance } from '../instances/store.ts'

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

type SessionRow = Selectable<Database['conversations']> & { key_status: string | null }

/**
 * The conversation of a session call and, when the session was opened with a key, that key's
 * status, in one statement (one row even when neither exists).
 */
export const findSessionConversation = async (
  db: Executor,
  { id, keyId }: { id: string; keyId: string | null },
): Promise<{ conversation: ConversationRow | undefined; keyStatus: string | undefined }> => {
  const { rows } = await sql<SessionRow>`
    select c.*, k.status as key_status
    from (select 1) as one
    left join conversations c on c.id = ${id}
    left join api_keys k on k.id = ${keyId}`.execute(db)
  const { key_status, ...row } = rows[0] as SessionRow
  return { conversation: row.id ? toConversation(row) : undefined, keyStatus: key_status ?? undefined }
}

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

/** What a new reply needs, as its claim found it. */
export type ReplyContext = {
  /** As claimed: its last activity is the claim's. */
  conversation: ConversationRow
  /** The agent answering now. */
  agent: AgentRow
  /** The newest `historyLimit` messages before the user's new one, oldest first. */
  history: Pick<MessageRow, 'role' | 'content'>[]
  /** The micro-USD reserved for the reply (credit_holds row `holdId` when above zero). */
  holdMicros: number
}

type ClaimedRow = Selectable<Database['conversations']> & {
  found: number
  held_micros: number | null
  agent: Record<string, unknown>
  history: Pick<MessageRow, 'role' | 'content'>[] | null
}

export type ClaimOutcome =
  | { status: 'claimed'; context: ReplyContext }
  /** The session could reply but its credits (balance minus open holds) cannot cover the hold. */
  | { status: 'insufficient' }
  /** The hold was placed but the slot was taken meanwhile: release the hold `holdId`. */
  | { status: 'slot_taken' }
  /** Something else refused: nothing was written, and the caller finds out why. */
  | { status: 'refused' }

/**
 * Takes the session's one reply slot, reserves the reply's expected cost, stores the user's
 * message and reads what the reply needs (the conversation, its current agent, its latest
 * messages), in one statement: the only round trip a reply makes before it can stream. The slot
 * is taken only when nothing would refuse the reply: the session is active and not idle past
 * `idleBefore`, its key (if any) is active, the agent exists, no other reply holds the slot (one
 * older than `staleBefore` is taken over), and the organization's balance minus its open holds
 * covers the hold (the price of the agent's model in `holdsByModel`, else `defaultHoldMicros`) and
 * `minBalanceMicros`: that conditional UPDATE of the organization's row takes its lock and is
 * re-checked on the newest row, so concurrent replies never share the same credits.
 */
export const claimReply = async (
  db: Executor,
  input: {
    id: string
    organizationId: string
    keyId: string | null
    idleBefore: Date
    staleBefore: Date
    minBalanceMicros: number
    historyLimit: number
    message: { id: string; content: string; tokenCount: number }
    instanceId: string
    hold: { id: string; byModel: Record<string, number>; defaultMicros: number; expiresAt: Date }
  },
): Promise<ClaimOutcome> => {
  const now = new Date()
  const { rows } = await sql<ClaimedRow>`
    with target as (
      select c.id, c.organization_id,
        coalesce((${JSON.stringify(input.hold.byModel)}::jsonb ->> coalesce(a.model, 'offline'))::bigint,
          ${input.hold.defaultMicros}::bigint) as hold
      from conversations c
      join agents a on a.organization_id = c.organization_id and a.id = coalesce(c.current_agent_id, c.agent_id)
      where c.id = ${input.id} and c.organization_id = ${input.organizationId} and c.status = 'active'
        and c.last_activity_at >= ${input.idleBefore}
        and (c.reply_started_at is null or c.reply_started_at < ${input.staleBefore})
        and (${input.keyId}::text is null
          or exists (select 1 from api_keys k where k.id = ${input.keyId} and k.status = 'active'))
    ), held as (
      update organizations o set held_micros = o.held_micros + target.hold
      from target
      where o.id = target.organization_id and o.credit_balance_micros > 0
        and o.credit_balance_micros - o.held_micros >= greatest(target.hold, ${input.minBalanceMicros}::bigint)
      returning target.id, target.organization_id, target.hold
    ), hold_row as (
      insert into credit_holds (id, organization_id, kind, reference, amount_micros, instance_id, created_at, expires_at)
      select ${input.hold.id}, held.organization_id, 'chat_reply', held.id, held.hold, ${input.instanceId},
        ${now}, ${input.hold.expiresAt}
      from held where held.hold > 0
    ), claimed as (
      update conversations c set reply_started_at = ${now}, last_activity_at = ${now},
        reply_instance_id = ${input.instanceId}, reply_partial_text = null
      from held
      where c.id = held.id and (c.reply_started_at is null or c.reply_started_at < ${input.staleBefore})
      returning c.*
    ), stored as (
      insert into chat_messages (id, conversation_id, role, content, token_count, status, created_at)
      select ${input.message.id}, claimed.id, 'user', ${input.message.content}, ${input.message.tokenCount},
        'complete', ${now}
      from claimed
    )
    select claimed.*, (select count(*) from target)::int as found,
      (select hold from held) as held_micros,
      (select to_json(a) from agents a
        where a.organization_id = claimed.organization_id
          and a.id = coalesce(claimed.current_agent_id, claimed.agent_id)) as agent,
      (select json_agg(json_build_object('role', h.role, 'content', h.content) order by h.created_at, h.id)
        from (select m.role, m.content, m.created_at, m.id from chat_messages m
          where m.conversation_id = claimed.id
          order by m.created_at desc, m.id desc limit ${input.historyLimit}) h) as history
    from (select 1) as one left join claimed on true`.execute(db)
  const { found, held_micros, agent, history, ...conversation } = rows[0] as ClaimedRow
  if (!conversation.id) {
    if (held_micros !== null) return { status: 'slot_taken' }
    return { status: found > 0 ? 'insufficient' : 'refused' }
  }
  return {
    status: 'claimed',
    context: {
      conversation: toConversation(conversation),
      agent: agentFromJson(agent),
      history: history ?? [],
      holdMicros: Number(held_micros ?? 0),
    },
  }
}

/** Keeps the reply's text so far, while this instance still holds the slot. */
export const saveReplyText = async (
  db: Executor,
  { id, instanceId, text }: { id: string; instanceId: string; text: string },
) => {
  await db
    .updateTable('conversations')
    .set({ reply_partial_text: text })
    .where('id', '=', id)
    .where('reply_instance_id', '=', instanceId)
    .where('reply_started_at', 'is not', null)
    .execute()
}

/**
 * Frees the reply slots of instances that died mid-reply (no heartbeat since `aliveAfter`), and
 * keeps each reply's saved text as a `partial` assistant message, in one statement. Answers the
 * conversations freed.
 */
export const recoverDeadReplies = async (
  db: Executor,
  { aliveAfter, now, idPrefix }: { aliveAfter: Date; now: Date; idPrefix: string },
) => {
  const { rows } = await sql<{ id: string }>`
    with dead as (
      select c.id, c.reply_partial_text from conversations c
      where c.reply_started_at is not null and c.reply_instance_id is not null
        and ${isDeadInstance(sql`c.reply_instance_id`, aliveAfter)}
      for update skip locked
    ), freed as (
      update conversations c set reply_started_at = null, reply_instance_id = null, reply_partial_text = null
      from dead where c.id = dead.id
      returning c.id
    ), stored as (
      insert into chat_messages (id, conversation_id, role, content, token_count, status, created_at)
      select ${idPrefix} || dead.id, dead.id, 'assistant', dead.reply_partial_text, null, 'partial', ${now}
      from dead where coalesce(dead.reply_partial_text, '') <> ''
    )
    select id from freed`.execute(db)
  return rows.map((row) => row.id)
}

export const releaseReply = async (db: Executor, id: string) => {
  await db
    .updateTable('conversations')
    .set({ reply_started_at: null, reply_instance_id: null, reply_partial_text: null })
    .where('id', '=', id)
    .execute()
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
      reply_instance_id: null,
      reply_partial_text: null,
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
    .set({ status, ended_at: new Date(), reply_started_at: null, reply_instance_id: null })
    .where('id', '=', id)
    .where('status', '=', 'active')
  if (idleBefore) query = query.where('last_activity_at', '<', idleBefore)
  const row = await query.returningAll().executeTakeFirst()
  return row ? toConversation(row) : undefined
}

export const insertMessage = async (
  db: Executor,
  message: Omit<MessageRow, 'createdAt'> & {
    conversationId: string
    /** An assistant reply's model, and the one it fell back from when it switched. */
    model?: string | null
    fallbackFrom?: string | null
  },
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
      model: message.model ?? null,
      fallback_from: message.fallbackFrom ?? null,
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
