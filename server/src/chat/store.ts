import { type Kysely, type Selectable, sql } from 'kysely'
import { type AgentRow, agentFromJson } from '../agents/index.ts'
import { monotonicUlids } from '../crypto/ids.ts'
import type { Database, Executor } from '../db/index.ts'

/** Tool calls of one reply share a millisecond: their ids keep the order they were made in. */
const toolCallId = monotonicUlids()

export type ConversationStatus = 'active' | 'ended' | 'expired'

export type ConversationRow = {
  id: string
  organizationId: string
  agentId: string
  agentName: string
  /** The agent answering now: another one after a handoff. */
  currentAgentId: string
  apiKeyId: string | null
  /** As the session's creator gave it (proven or not: see userVerified). */
  userIdentifier: string | null
  /** Whose memory this conversation recalls and adds to: `user:…`, `visitor:…`, or none. */
  memoryIdentity: string | null
  /** The identifier was proven (secret key, studio session, or a valid user_hash). */
  userVerified: boolean
  metadata: Record<string, unknown>
  status: ConversationStatus
  inputTokens: number
  outputTokens: number
  costMicros: number
  createdAt: Date
  lastActivityAt: Date
  endedAt: Date | null
  /** The studio's Try it on the agent's unpublished draft: replies use the draft's settings. */
  agentDraft: boolean
}

export type MessageRow = {
  id: string
  role: 'user' | 'assistant'
  content: string
  tokenCount: number | null
  status: 'complete' | 'partial' | 'stopped'
  createdAt: Date
}

/** A message as history shows it: how it was said too, and the knowledge sources a reply was given. */
export type HistoryRow = MessageRow & {
  channel: 'text' | 'voice'
  sources: Array<{ title: string; url: string | null; snippet: string }> | null
}

const toConversation = (row: Selectable<Database['conversations']>): ConversationRow => ({
  id: row.id,
  organizationId: row.organization_id,
  agentId: row.agent_id,
  agentName: row.agent_name,
  currentAgentId: row.current_agent_id ?? row.agent_id,
  apiKeyId: row.api_key_id,
  userIdentifier: row.user_identifier,
  memoryIdentity: row.memory_identity,
  userVerified: row.user_verified,
  metadata: row.metadata,
  status: row.status,
  inputTokens: row.input_tokens,
  outputTokens: row.output_tokens,
  costMicros: Number(row.cost_micros),
  createdAt: row.created_at,
  lastActivityAt: row.last_activity_at,
  endedAt: row.ended_at,
  agentDraft: row.agent_draft,
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
    | 'id'
    | 'organizationId'
    | 'agentId'
    | 'agentName'
    | 'apiKeyId'
    | 'userIdentifier'
    | 'memoryIdentity'
    | 'userVerified'
    | 'metadata'
  > & { agentDraft?: boolean },
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
      memory_identity: conversation.memoryIdentity,
      user_verified: conversation.userVerified,
      metadata: JSON.stringify(conversation.metadata),
      agent_draft: conversation.agentDraft ?? false,
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
}

type ClaimedRow = Selectable<Database['conversations']> & {
  agent: Record<string, unknown>
  history: Pick<MessageRow, 'role' | 'content'>[] | null
}

/**
 * Takes the session's one reply slot, stores the user's message and reads what the reply needs
 * (the conversation, its current agent, its latest messages), in one statement: the only round
 * trip a reply makes before it can stream. The slot is taken only when nothing would refuse the
 * reply: the session is active and not idle past `idleBefore`, its key (if any) is active, the
 * balance is at least `minBalanceMicros` (and above zero), the agent exists, and no other reply
 * holds the slot (one older than `staleBefore` belonged to an instance that died mid-reply and is
 * taken over). Undefined when any of that fails: nothing was written, and the caller finds out why.
 */
export const claimReply = async (
  db: Executor,
  input: {
    id: string
    organizationId: string
    keyId: string | null
    idleBefore: Date
    staleBefore: Date
    /** The streaming instance must have beaten since then, or its reply is taken over. */
    aliveAfter: Date
    /** The instance taking the reply. */
    instanceId: string
    minBalanceMicros: number
    historyLimit: number
    message: { id: string; content: string; tokenCount: number }
  },
): Promise<ReplyContext | undefined> => {
  const now = new Date()
  const { rows } = await sql<ClaimedRow>`
    with claimed as (
      update conversations c set reply_started_at = ${now}, reply_instance_id = ${input.instanceId},
        last_activity_at = ${now}
      where c.id = ${input.id} and c.organization_id = ${input.organizationId} and c.status = 'active'
        and c.last_activity_at >= ${input.idleBefore}
        and (c.reply_started_at is null or c.reply_started_at < ${input.staleBefore}
          or not exists (select 1 from server_instances i
            where i.id = c.reply_instance_id and i.last_seen_at >= ${input.aliveAfter}))
        and (${input.keyId}::text is null
          or exists (select 1 from api_keys k where k.id = ${input.keyId} and k.status = 'active'))
        and exists (select 1 from organizations o where o.id = c.organization_id
          and o.credit_balance_micros >= ${input.minBalanceMicros} and o.credit_balance_micros > 0)
        and exists (select 1 from agents a where a.id = coalesce(c.current_agent_id, c.agent_id)
          and (a.organization_id = c.organization_id or a.mode = 'commercial'))
      returning c.*
    ), stored as (
      insert into chat_messages (id, conversation_id, role, content, token_count, status, created_at)
      select ${input.message.id}, claimed.id, 'user', ${input.message.content}, ${input.message.tokenCount},
        'complete', ${now}
      from claimed
    )
    select claimed.*,
      (select to_json(a) from agents a
        where a.id = coalesce(claimed.current_agent_id, claimed.agent_id)
          and (a.organization_id = claimed.organization_id or a.mode = 'commercial')) as agent,
      (select json_agg(json_build_object('role', h.role, 'content', h.content) order by h.created_at, h.id)
        from (select m.role, m.content, m.created_at, m.id from chat_messages m
          where m.conversation_id = claimed.id
          order by m.created_at desc, m.id desc limit ${input.historyLimit}) h) as history
    from claimed`.execute(db)
  const row = rows[0]
  if (!row) return undefined
  const { agent, history, ...conversation } = row
  return {
    conversation: toConversation(conversation),
    agent: agentFromJson(agent),
    history: history ?? [],
  }
}

/**
 * Undoes a claim whose reply was refused before its model was asked (its hold or its first round
 * was not covered by the credits): the user's message goes and the slot is free, as if never sent.
 * The session's first user message is read again, so a refused first send does not start the
 * clock of its time to a first reply.
 */
export const unclaimReply = async (
  db: Kysely<Database>,
  { id, messageId }: { id: string; messageId: string },
) => {
  await db.transaction().execute(async (tx) => {
    await tx
      .deleteFrom('chat_messages')
      .where('id', '=', messageId)
      .where('conversation_id', '=', id)
      .execute()
    await tx
      .updateTable('conversations')
      .set({
        reply_started_at: null,
        first_user_at: sql`(select min(m.created_at) from chat_messages m
          where m.conversation_id = ${id} and m.role = 'user')`,
      })
      .where('id', '=', id)
      .execute()
  })
}

/** The text a message holds now (a dead reply's last checkpoint); undefined when there is none. */
export const findMessageContent = async (db: Executor, id: string) =>
  (await db.selectFrom('chat_messages').select('content').where('id', '=', id).executeTakeFirst())?.content

export const releaseReply = async (db: Executor, id: string) => {
  await db.updateTable('conversations').set({ reply_started_at: null }).where('id', '=', id).execute()
}

/**
 * Adds one reply's metered usage to the session's totals and, as the reply ends, frees the reply
 * slot. A reply settled by another instance after its own died (`isEnding: false`) adds its usage
 * only: the slot is the session's next reply's by then.
 */
export const addReplyUsage = async (
  db: Executor,
  usage: { id: string; inputTokens: number; outputTokens: number; costMicros: number },
  { isEnding = true }: { isEnding?: boolean } = {},
) => {
  await db
    .updateTable('conversations')
    .set({
      input_tokens: sql`input_tokens + ${usage.inputTokens}`,
      output_tokens: sql`output_tokens + ${usage.outputTokens}`,
      cost_micros: sql`cost_micros + ${usage.costMicros}`,
      ...(isEnding ? { reply_started_at: null, last_activity_at: new Date() } : {}),
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
  message: Omit<MessageRow, 'createdAt'> & {
    conversationId: string
    /** An assistant reply's model, and the one it fell back from when it switched. */
    model?: string | null
    fallbackFrom?: string | null
    sources?: Array<{ title: string; url: string | null; snippet: string }> | null
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
      sources: message.sources ? JSON.stringify(message.sources) : null,
      created_at: new Date(),
    })
    // A reply's checkpoints (checkpointReply) wrote it before: the reply as it ended replaces them.
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
        content: eb.ref('excluded.content'),
        token_count: eb.ref('excluded.token_count'),
        status: eb.ref('excluded.status'),
        model: eb.ref('excluded.model'),
        fallback_from: eb.ref('excluded.fallback_from'),
        sources: eb.ref('excluded.sources'),
      })),
    )
    .execute()
}

/**
 * The text of a reply still streaming, stored as a `partial` assistant message under the id its
 * final record will have: an instance that dies mid-reply leaves what it had streamed up to its
 * last checkpoint, and the session goes on from there.
 */
export const checkpointReply = async (
  db: Executor,
  { id, conversationId, content }: { id: string; conversationId: string; content: string },
) => {
  await db
    .insertInto('chat_messages')
    .values({
      id,
      conversation_id: conversationId,
      role: 'assistant',
      content,
      status: 'partial',
      created_at: new Date(),
    })
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet((eb) => ({ content: eb.ref('excluded.content') }))
        .where('chat_messages.status', '=', 'partial'),
    )
    .execute()
}

/** A tool the agent called during a reply, or a handoff it made. */
export type ToolCallRecord = {
  kind: 'function' | 'end_call' | 'handoff' | 'unknown'
  name: string
  arguments: unknown
  status: 'completed' | 'failed'
  targetAgentId: string | null
  at: Date
}

/** The tool calls and handoffs of one reply, kept for the owner's view of the conversation. */
export const insertToolCalls = async (
  db: Executor,
  { conversationId, calls }: { conversationId: string; calls: ToolCallRecord[] },
) => {
  if (calls.length === 0) return
  await db
    .insertInto('chat_tool_calls')
    .values(
      calls.map((call) => ({
        id: toolCallId(),
        conversation_id: conversationId,
        kind: call.kind,
        name: call.name,
        arguments: JSON.stringify(call.arguments ?? {}),
        status: call.status,
        target_agent_id: call.targetAgentId,
        created_at: call.at,
      })),
    )
    .execute()
}

/**
 * What was said in a call that continues the conversation, as its messages (channel `voice`, at
 * the time each line was spoken); the conversation's activity moves on with them, so a long call
 * does not let the chat session expire under it.
 */
export const insertSpokenMessages = async (
  db: Executor,
  {
    conversationId,
    callId,
    lines,
  }: {
    conversationId: string
    callId: string
    lines: Array<{ id: string; role: 'user' | 'assistant'; content: string; spokenAt: Date }>
  },
) => {
  await db
    .insertInto('chat_messages')
    .values(
      lines.map((line) => ({
        id: line.id,
        conversation_id: conversationId,
        role: line.role,
        content: line.content,
        token_count: null,
        model: null,
        fallback_from: null,
        channel: 'voice' as const,
        call_id: callId,
        created_at: line.spokenAt,
      })),
    )
    .execute()
  await db
    .updateTable('conversations')
    .set({ last_activity_at: new Date() })
    .where('id', '=', conversationId)
    .where('status', '=', 'active')
    .execute()
}

const messageColumns = [
  'id',
  'role',
  'content',
  'token_count as tokenCount',
  'status',
  'channel',
  'sources',
  'created_at as createdAt',
] as const

/**
 * Not the checkpoint of a reply still streaming on a live instance (its reader follows the stream
 * instead); once that instance is dead, the checkpoint is the reply's partial text, shown.
 */
const notStreaming = (aliveAfter: Date) =>
  sql<boolean>`not exists (select 1 from conversations c join server_instances i on i.id = c.reply_instance_id
    where c.id = chat_messages.conversation_id and c.reply_started_at is not null
      and chat_messages.status = 'partial' and chat_messages.created_at >= c.reply_started_at
      and i.last_seen_at >= ${aliveAfter})`

/**
 * Oldest first; ids are ULIDs, so they order messages of the same millisecond. With `aliveAfter`,
 * the checkpoint of the reply streaming now is left out (see notStreaming).
 */
export const listMessages = (
  db: Executor,
  {
    conversationId,
    limit,
    offset,
    aliveAfter,
  }: { conversationId: string; limit: number; offset: number; aliveAfter?: Date },
): Promise<HistoryRow[]> =>
  db
    .selectFrom('chat_messages')
    .select(messageColumns)
    .where('conversation_id', '=', conversationId)
    .$if(aliveAfter !== undefined, (query) => query.where(notStreaming(aliveAfter as Date)))
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute()

/**
 * A conversation's latest `limit` messages, oldest first, leaving out what was said in `callId`
 * (the call asking for them): what a call that continues the conversation hears first.
 */
export const listTurnsBefore = async (
  db: Executor,
  { conversationId, callId, limit }: { conversationId: string; callId: string; limit: number },
) => {
  const latest = await db
    .selectFrom('chat_messages')
    .select(['role', 'content', 'channel', 'created_at', 'id'])
    .where('conversation_id', '=', conversationId)
    .where((eb) => eb.or([eb('call_id', 'is', null), eb('call_id', '!=', callId)]))
    .where('content', '!=', '')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
  return latest.reverse().map(({ role, content, channel }) => ({ role, content, channel }))
}

export const countMessages = async (db: Executor, conversationId: string, aliveAfter?: Date) => {
  const row = await db
    .selectFrom('chat_messages')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('conversation_id', '=', conversationId)
    .$if(aliveAfter !== undefined, (query) => query.where(notStreaming(aliveAfter as Date)))
    .executeTakeFirstOrThrow()
  return Number(row.count)
}
