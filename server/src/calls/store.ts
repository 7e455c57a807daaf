import type { AmdVerdict, CallOutcome } from '@parley/shared'
import { type RawBuilder, sql, type UpdateObject } from 'kysely'
import { atExactTime, exactTime } from '../db/exact-time.ts'
import type { Database, Executor } from '../db/index.ts'

export type CallRow = {
  id: string
  organizationId: string
  agentId: string
  userId: string | null
  keyId: string | null
  roomName: string
  architecture: 'pipeline' | 'realtime'
  direction: 'web' | 'outbound' | 'inbound'
  status: 'active' | 'ended' | 'failed'
  startedAt: Date
  endedAt: Date | null
  durationSeconds: number | null
  costMicros: number
  endReason: string | null
  phoneNumber: string | null
  /** Inbound calls: the organization's number the caller rang. */
  calledNumber: string | null
  /** Inbound calls: the caller's SIP participant identity (LiveKit's). */
  sipIdentity: string | null
  batchJobId: string | null
  batchContactId: string | null
  createdAt: Date
  /** The person's first join (browser user, or callee answering); null: never came. */
  personJoinedAt: Date | null
  /** The first sign that a worker took the dispatch (its setup request or its participant joining). */
  agentTakenAt: Date | null
  /** The agent participant in the room now; null: none. */
  agentParticipantSid: string | null
  /** Start of the billed interval running now (person and agent both in the room); null: none. */
  billingSince: Date | null
  /** What the call's finished billed intervals cost. */
  accruedMicros: number
  /** The agent answering after a handoff; null: the dispatched one (agentId). */
  liveAgentId: string | null
  /** The chat conversation this call continues; null: a call of its own. */
  conversationId: string | null
  /** How it ended from the caller's side (calls/outcome.ts); null while active. */
  outcome: CallOutcome | null
  /** The SIP final status of an unanswered dial; null: none. */
  sipStatus: number | null
  /** What answering-machine detection decided, when the worker said. */
  amdVerdict: AmdVerdict | null
  /** Micro-USD a minute at the live agent's models and keys; null: its architecture's flat price. */
  microsPerMinute: number | null
  /**
   * A closed call whose `ended` event and `call.ended` wait for its agent worker's end, until this
   * time at the latest (calls/close.ts); null: nothing waits.
   */
  endHeldUntil: Date | null
}

export type NewCall = Pick<
  CallRow,
  | 'id'
  | 'organizationId'
  | 'agentId'
  | 'userId'
  | 'keyId'
  | 'roomName'
  | 'architecture'
  | 'direction'
  | 'phoneNumber'
  | 'batchJobId'
  | 'batchContactId'
> & {
  conversationId?: string | null
  calledNumber?: string | null
  sipIdentity?: string | null
  microsPerMinute?: number | null
}

const callColumns = [
  'id',
  'organization_id as organizationId',
  'agent_id as agentId',
  'user_id as userId',
  'key_id as keyId',
  'room_name as roomName',
  'architecture',
  'direction',
  'status',
  'started_at as startedAt',
  'ended_at as endedAt',
  'duration_seconds as durationSeconds',
  'cost_micros as costMicros',
  'end_reason as endReason',
  'phone_number as phoneNumber',
  'called_number as calledNumber',
  'sip_identity as sipIdentity',
  'batch_job_id as batchJobId',
  'batch_contact_id as batchContactId',
  'created_at as createdAt',
  'person_joined_at as personJoinedAt',
  'agent_taken_at as agentTakenAt',
  'agent_participant_sid as agentParticipantSid',
  'billing_since as billingSince',
  'accrued_micros as accruedMicros',
  'live_agent_id as liveAgentId',
  'conversation_id as conversationId',
  'outcome',
  'sip_status as sipStatus',
  'amd_verdict as amdVerdict',
  'micros_per_minute as microsPerMinute',
  'end_held_until as endHeldUntil',
] as const

/** callColumns for raw SQL on the calls table. */
const returnedCallColumns = sql.raw(
  callColumns
    .map((column) => {
      const [name, alias] = column.split(' as ')
      return `calls.${name} as "${alias ?? name}"`
    })
    .join(', '),
)

export const insertCall = (db: Executor, call: NewCall): Promise<CallRow> =>
  db
    .insertInto('calls')
    .values({
      id: call.id,
      organization_id: call.organizationId,
      agent_id: call.agentId,
      user_id: call.userId,
      key_id: call.keyId,
      room_name: call.roomName,
      architecture: call.architecture,
      direction: call.direction,
      phone_number: call.phoneNumber,
      batch_job_id: call.batchJobId,
      batch_contact_id: call.batchContactId,
      conversation_id: call.conversationId ?? null,
      called_number: call.calledNumber ?? null,
      sip_identity: call.sipIdentity ?? null,
      micros_per_minute: call.microsPerMinute ?? null,
    })
    .returning(callColumns)
    .executeTakeFirstOrThrow()

/** insertCall for many rows in one statement (the batch dialer opens a claim round's calls together). */
export const insertCalls = async (db: Executor, calls: NewCall[]): Promise<void> => {
  if (calls.length === 0) return
  const column = <K extends keyof NewCall>(key: K) => calls.map((call) => call[key])
  await sql`
    insert into calls (id, organization_id, agent_id, user_id, key_id, room_name, architecture, direction,
      phone_number, batch_job_id, batch_contact_id, micros_per_minute)
    select * from unnest(
      ${column('id')}::text[], ${column('organizationId')}::text[], ${column('agentId')}::text[],
      ${column('userId')}::text[], ${column('keyId')}::text[], ${column('roomName')}::text[],
      ${column('architecture')}::text[], ${column('direction')}::text[], ${column('phoneNumber')}::text[],
      ${column('batchJobId')}::text[], ${column('batchContactId')}::text[],
      ${calls.map((call) => call.microsPerMinute ?? null)}::int[]
    )
  `.execute(db)
}

export const findCall = (
  db: Executor,
  { organizationId, id }: { organizationId: string; id: string },
): Promise<AnalysedCallRow | undefined> =>
  db
    .selectFrom('calls')
    .select([...callColumns, ...analysisColumns])
    .where('id', '=', id)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst()

export type CloseRequest = {
  roomName: string
  status: 'ended' | 'failed'
  reason: string
  outcome: CallOutcome
  sipStatus: number | null
  amdVerdict: AmdVerdict | null
}

/**
 * Moves the active calls of these rooms to ended/failed, each with its own status, reason and
 * outcome, and fixes their durations from the database clock, in one statement. A `completed`
 * call whose phone caller was handed to a person (a transfer that went through) ends
 * `transferred`. The status condition makes
 * exactly one closer of a call the winner: the calls it answers are those this statement closed
 * (a room listed twice is closed once, with its first request). The rows are locked in room
 * order, as the batch dialer's answers lock them, so two batches never wait for each other in a cycle.
 */
export const markCallsClosed = async (db: Executor, requests: CloseRequest[]): Promise<CallRow[]> => {
  const first = new Map<string, CloseRequest>()
  for (const request of requests) if (!first.has(request.roomName)) first.set(request.roomName, request)
  const ordered = [...first.values()]
  if (ordered.length === 0) return []
  const { rows } = await sql<CallRow>`
    with closing as (
      select * from unnest(
        ${ordered.map((r) => r.roomName)}::text[], ${ordered.map((r) => r.status)}::text[],
        ${ordered.map((r) => r.reason)}::text[], ${ordered.map((r) => r.outcome)}::text[],
        ${ordered.map((r) => r.sipStatus)}::integer[], ${ordered.map((r) => r.amdVerdict)}::text[]
      ) as closing(room_name, status, reason, outcome, sip_status, amd_verdict)
    ),
    locked as (
      select id from calls where room_name in (select room_name from closing) and status = 'active'
      order by room_name
      for update
    )
    update calls
    set status = closing.status, end_reason = closing.reason, ended_at = now(),
      outcome = case when closing.outcome = 'completed' and exists (select 1 from call_transfers t
          where t.call_id = calls.id and t.status = 'transferred') then 'transferred'
        else closing.outcome end,
      sip_status = closing.sip_status, amd_verdict = coalesce(closing.amd_verdict, calls.amd_verdict),
      duration_seconds = greatest(0, ceil(extract(epoch from (now() - calls.started_at))))::integer
    from closing
    where calls.room_name = closing.room_name and calls.id in (select id from locked)
      and calls.status = 'active'
    returning ${returnedCallColumns}
  `.execute(db)
  return rows
}

/**
 * The billing clock of a join: the interval starts when the one who joined finds the other
 * there (`otherIsPresent`, a condition on the row before the update). started_at, created equal
 * to created_at, moves once, to the first moment both were there (at least 1 ms after created_at,
 * so the two differ in a JavaScript Date too). Raw SQL, so the dialer's batched answers set the
 * same in their own statement.
 */
const billingOnJoin = (otherIsPresent: RawBuilder<unknown>) => ({
  billingSince: sql<Date | null>`case when billing_since is null and ${otherIsPresent} then now() else billing_since end`,
  startedAt: sql<Date>`case when started_at = created_at and ${otherIsPresent}
    then greatest(now(), created_at + interval '1 millisecond') else started_at end`,
})

/** The columns a person's join sets: the agent is there when a participant sid is recorded. */
export const personJoinBilling = billingOnJoin(sql`agent_participant_sid is not null`)
const agentJoinBilling = billingOnJoin(sql`person_joined_at is not null`)

/** Sets `change` on the active call of a room; answers whether there was one. */
const updateActiveCallInRoom = async (
  db: Executor,
  roomName: string,
  change: UpdateObject<Database, 'calls'>,
) => {
  const result = await db
    .updateTable('calls')
    .set(change)
    .where('room_name', '=', roomName)
    .where('status', '=', 'active')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/**
 * The person joined (LiveKit's participant_joined of a browser user or SIP callee). Later joins
 * (reconnects) change nothing. Returns whether the call was active.
 */
export const markPersonJoined = (db: Executor, roomName: string) =>
  updateActiveCallInRoom(db, roomName, {
    person_joined_at: sql`coalesce(person_joined_at, now())`,
    billing_since: personJoinBilling.billingSince,
    started_at: personJoinBilling.startedAt,
  })

/** The agent's participant joined: it is the one present now (a rejoin brings a new sid). */
export const markAgentJoined = (
  db: Executor,
  { roomName, participantSid }: { roomName: string; participantSid: string },
) =>
  updateActiveCallInRoom(db, roomName, {
    agent_participant_sid: participantSid,
    agent_taken_at: sql`coalesce(agent_taken_at, now())`,
    billing_since: agentJoinBilling.billingSince,
    started_at: agentJoinBilling.startedAt,
  })

/** A worker took the call (it asked for its setup): the agent-join deadline no longer applies. */
export const markAgentTaken = async (db: Executor, id: string) => {
  await db
    .updateTable('calls')
    .set({ agent_taken_at: sql`coalesce(agent_taken_at, now())` })
    .where('id', '=', id)
    .where('agent_taken_at', 'is', null)
    .execute()
}

/** Locks an active call (by room or id) for the rest of the transaction, with the database's clock. */
export const lockActiveCall = async (
  db: Executor,
  where: { roomName: string } | { id: string },
): Promise<(CallRow & { now: Date }) | undefined> => {
  const query = db
    .selectFrom('calls')
    .select(callColumns)
    .select(sql<Date>`now()`.as('now'))
    .where('status', '=', 'active')
  const found =
    'id' in where ? query.where('id', '=', where.id) : query.where('room_name', '=', where.roomName)
  return found.forUpdate().executeTakeFirst()
}

/** The billing state of a call locked with lockActiveCall. */
export const setBilling = async (
  db: Executor,
  {
    id,
    ...change
  }: { id: string } & Partial<
    Pick<
      CallRow,
      | 'billingSince'
      | 'accruedMicros'
      | 'agentParticipantSid'
      | 'architecture'
      | 'liveAgentId'
      | 'microsPerMinute'
    >
  >,
) => {
  await db
    .updateTable('calls')
    .set({
      ...(change.billingSince === undefined ? {} : { billing_since: change.billingSince }),
      ...(change.accruedMicros === undefined ? {} : { accrued_micros: change.accruedMicros }),
      ...(change.agentParticipantSid === undefined
        ? {}
        : { agent_participant_sid: change.agentParticipantSid }),
      ...(change.architecture === undefined ? {} : { architecture: change.architecture }),
      ...(change.liveAgentId === undefined ? {} : { live_agent_id: change.liveAgentId }),
      ...(change.microsPerMinute === undefined ? {} : { micros_per_minute: change.microsPerMinute }),
    })
    .where('id', '=', id)
    .execute()
}

/** Active calls no worker has taken though they were opened more than `seconds` ago. */
export const listCallsAwaitingAgent = (
  db: Executor,
  { seconds, limit }: { seconds: number; limit: number },
): Promise<Array<{ roomName: string }>> =>
  db
    .selectFrom('calls')
    .select('room_name as roomName')
    .where('status', '=', 'active')
    .where('agent_taken_at', 'is', null)
    .where('created_at', '<', sql<Date>`now() - make_interval(secs => ${seconds})`)
    .orderBy('created_at')
    .limit(limit)
    .execute()

/** Records what each call cost (what its debit took), in one statement. */
export const setCallCosts = async (db: Executor, costs: Array<{ id: string; costMicros: number }>) => {
  if (costs.length === 0) return
  await sql`
    update calls set cost_micros = cost.micros
    from unnest(${costs.map((c) => c.id)}::text[], ${costs.map((c) => c.costMicros)}::bigint[]) as cost(id, micros)
    where calls.id = cost.id
  `.execute(db)
}

/** Active calls started before `startedBefore` (the sweeper leaves brand-new rooms alone). */
export const listActiveCalls = (
  db: Executor,
  { startedBefore, limit }: { startedBefore: Date; limit: number },
): Promise<CallRow[]> =>
  db
    .selectFrom('calls')
    .select(callColumns)
    .where('status', '=', 'active')
    .where('started_at', '<', startedBefore)
    .orderBy('started_at')
    .limit(limit)
    .execute()

/** The active calls a key opened (its voice sessions), to end them when it is revoked. */
export const listActiveCallsOfKey = (db: Executor, keyId: string): Promise<CallRow[]> =>
  db
    .selectFrom('calls')
    .select(callColumns)
    .where('key_id', '=', keyId)
    .where('status', '=', 'active')
    .execute()

export type CallFilter = {
  organizationId: string
  agentId?: string | undefined
  status?: CallRow['status'] | undefined
  direction?: CallRow['direction'] | undefined
  batchJobId?: string | undefined
  conversationId?: string | undefined
  phoneNumber?: string | undefined
  outcome?: CallOutcome | undefined
  createdFrom?: Date | undefined
  createdTo?: Date | undefined
  hasAnalysis?: boolean | undefined
  q?: string | undefined
}

/** Where the previous page ended: its last call's creation time (exact) and id (newest first). */
export type CallCursor = { createdAt: string; id: string }

/** A call as the owner reads it: the call and its post-call analysis. */
export type AnalysedCallRow = CallRow & AnalysisColumns & { cursorAt?: string }

type AnalysisColumns = {
  analysisSummary: string | null
  analysisSentiment: 'positive' | 'neutral' | 'negative' | null
  analysisOutcome: string | null
  analysisData: Record<string, unknown> | null
  analyzedAt: Date | null
  /** 'skipped' when no model could analyse the call (analysisError says why); null otherwise. */
  analysisStatus: 'analyzed' | 'skipped' | null
  analysisError: string | null
}

const analysisColumns = [
  'analysis_summary as analysisSummary',
  'analysis_sentiment as analysisSentiment',
  'analysis_outcome as analysisOutcome',
  'analysis_data as analysisData',
  'analyzed_at as analyzedAt',
  'analysis_status as analysisStatus',
  'analysis_error as analysisError',
] as const

/**
 * A call no model could analyse: it keeps no analysis and says why. Once: a call analysed (or
 * already skipped) is left as it is.
 */
export const markAnalysisSkipped = async (
  db: Executor,
  { callId, reason }: { callId: string; reason: string },
) => {
  const marked = await db
    .updateTable('calls')
    .set({ analysis_status: 'skipped', analysis_error: reason })
    .where('id', '=', callId)
    .where('analyzed_at', 'is', null)
    .where('analysis_status', 'is', null)
    .returning('id')
    .executeTakeFirst()
  return marked !== undefined
}

/** Whether the call's analysis is done: written, or skipped with its reason. */
export const isAnalysisSettled = async (db: Executor, callId: string) => {
  const row = await db
    .selectFrom('calls')
    .select(['analyzed_at', 'analysis_status'])
    .where('id', '=', callId)
    .executeTakeFirst()
  return row !== undefined && (row.analyzed_at !== null || row.analysis_status !== null)
}

const filtered = (db: Executor, filter: CallFilter) => {
  let query = db.selectFrom('calls').where('organization_id', '=', filter.organizationId)
  if (filter.agentId) query = query.where('agent_id', '=', filter.agentId)
  if (filter.status) query = query.where('status', '=', filter.status)
  if (filter.direction) query = query.where('direction', '=', filter.direction)
  if (filter.batchJobId) query = query.where('batch_job_id', '=', filter.batchJobId)
  if (filter.conversationId) query = query.where('conversation_id', '=', filter.conversationId)
  if (filter.phoneNumber) query = query.where('phone_number', '=', filter.phoneNumber)
  if (filter.outcome) query = query.where('outcome', '=', filter.outcome)
  if (filter.createdFrom) query = query.where('created_at', '>=', filter.createdFrom)
  if (filter.createdTo) query = query.where('created_at', '<', filter.createdTo)
  if (filter.hasAnalysis !== undefined)
    query = query.where('analyzed_at', filter.hasAnalysis ? 'is not' : 'is', null)
  const words = filter.q
  if (words)
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('call_transcript_lines as line')
          .select('line.id')
          .whereRef('line.call_id', '=', 'calls.id')
          .where(sql<boolean>`to_tsvector('simple', line.content) @@ plainto_tsquery('simple', ${words})`),
      ),
    )
  return query
}

/**
 * Newest first, one page of an organization's calls: by offset with the total for its pagination,
 * or after a cursor (keyset: creation time, then id). `limit + 1` rows, so the caller knows
 * whether another page follows.
 */
export const listCalls = async (
  db: Executor,
  filter: CallFilter & { limit: number; offset: number; after: CallCursor | null },
): Promise<{ calls: AnalysedCallRow[]; total: number }> => {
  let page = filtered(db, filter)
  const { after } = filter
  if (after)
    page = page.where(sql<boolean>`(created_at, id) < (${atExactTime(after.createdAt)}, ${after.id})`)
  const [calls, counted] = await Promise.all([
    page
      .select([...callColumns, ...analysisColumns, exactTime('created_at').as('cursorAt')])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(filter.limit + 1)
      .offset(after ? 0 : filter.offset)
      .execute(),
    filtered(db, filter)
      .select((eb) => eb.fn.countAll<string>().as('total'))
      .executeTakeFirstOrThrow(),
  ])
  return { calls, total: Number(counted.total) }
}

export type TranscriptLineRow = {
  position: number
  role: 'user' | 'assistant'
  content: string
  spokenAt: Date
  interrupted: boolean
}

export const listTranscript = (db: Executor, callId: string): Promise<TranscriptLineRow[]> =>
  db
    .selectFrom('call_transcript_lines')
    .select(['position', 'role', 'content', 'spoken_at as spokenAt', 'interrupted'])
    .where('call_id', '=', callId)
    .orderBy('position')
    .execute()

/**
 * Appends after the last stored line, skipping lines whose worker id the call already has (a
 * retried batch). Run inside a transaction that locked the call row (`lockCall`), so two
 * concurrent appends cannot take the same positions. Answers the lines stored and the last position.
 */
export const appendTranscript = async <
  Line extends {
    id: string
    workerLineId: string | null
    role: 'user' | 'assistant'
    content: string
    spokenAt: Date
    interrupted: boolean
  },
>(
  db: Executor,
  { callId, organizationId, lines }: { callId: string; organizationId: string; lines: Line[] },
) => {
  const named = lines.flatMap((line) => (line.workerLineId ? [line.workerLineId] : []))
  const known = new Set(
    named.length === 0
      ? []
      : (
          await db
            .selectFrom('call_transcript_lines')
            .select('worker_line_id')
            .where('call_id', '=', callId)
            .where('worker_line_id', 'in', named)
            .execute()
        ).map((row) => row.worker_line_id),
  )
  const seen = new Set<string>()
  const fresh = lines.filter((line) => {
    if (!line.workerLineId) return true
    if (known.has(line.workerLineId) || seen.has(line.workerLineId)) return false
    seen.add(line.workerLineId)
    return true
  })
  const last = await db
    .selectFrom('call_transcript_lines')
    .select((eb) => eb.fn.max<number | null>('position').as('position'))
    .where('call_id', '=', callId)
    .executeTakeFirst()
  const start = (last?.position ?? 0) + 1
  if (fresh.length > 0)
    await db
      .insertInto('call_transcript_lines')
      .values(
        fresh.map((line, index) => ({
          id: line.id,
          call_id: callId,
          organization_id: organizationId,
          role: line.role,
          content: line.content,
          spoken_at: line.spokenAt,
          position: start + index,
          worker_line_id: line.workerLineId,
          interrupted: line.interrupted,
        })),
      )
      .execute()
  return { stored: fresh, total: start + fresh.length - 1 }
}

export type CallToolCallRecord = {
  workerCallId: string
  kind: 'function' | 'end_call' | 'handoff'
  name: string
  arguments: unknown
  status: 'completed' | 'failed'
  targetAgentId: string | null
  at: Date
}

/** Stores a call's tool calls, skipping those whose worker id it already has; answers the new ones. */
export const insertCallToolCalls = async (
  db: Executor,
  {
    callId,
    organizationId,
    calls,
  }: { callId: string; organizationId: string; calls: (CallToolCallRecord & { id: string })[] },
) => {
  if (calls.length === 0) return []
  const inserted = await db
    .insertInto('call_tool_calls')
    .values(
      calls.map((call) => ({
        id: call.id,
        call_id: callId,
        organization_id: organizationId,
        worker_call_id: call.workerCallId,
        kind: call.kind,
        name: call.name,
        arguments: JSON.stringify(call.arguments ?? {}),
        status: call.status,
        target_agent_id: call.targetAgentId,
        created_at: call.at,
      })),
    )
    .onConflict((oc) => oc.columns(['call_id', 'worker_call_id']).doNothing())
    .returning('worker_call_id')
    .execute()
  const fresh = new Set(inserted.map((row) => row.worker_call_id))
  return calls.filter((call) => fresh.has(call.workerCallId))
}

export const listCallToolCalls = (db: Executor, callId: string) =>
  db
    .selectFrom('call_tool_calls')
    .select([
      'kind',
      'name',
      'arguments',
      'status',
      'target_agent_id as targetAgentId',
      'created_at as createdAt',
    ])
    .where('call_id', '=', callId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()

/** Takes the call row's lock for the rest of the transaction. */
export const lockCall = (db: Executor, id: string): Promise<CallRow | undefined> =>
  db.selectFrom('calls').select(callColumns).where('id', '=', id).forUpdate().executeTakeFirst()

export const findCallByRoom = (db: Executor, roomName: string): Promise<CallRow | undefined> =>
  db.selectFrom('calls').select(callColumns).where('room_name', '=', roomName).executeTakeFirst()

export const findCallById = (db: Executor, id: string): Promise<CallRow | undefined> =>
  db.selectFrom('calls').select(callColumns).where('id', '=', id).executeTakeFirst()

/**
 * A worker's decisive end (a voicemail, a phone menu, an opt-out) that came after a webhook's
 * close: the call's `completed` becomes what the worker saw, once, and only when the close that
 * won only knew the room emptied. Answers the call refined, or undefined.
 */
export const refineClosedOutcome = (
  db: Executor,
  {
    id,
    outcome,
    amdVerdict,
    refinable,
  }: { id: string; outcome: CallOutcome; amdVerdict: AmdVerdict | null; refinable: readonly string[] },
): Promise<CallRow | undefined> =>
  db
    .updateTable('calls')
    .set({ outcome, end_reason: outcome, amd_verdict: sql`coalesce(${amdVerdict}, amd_verdict)` })
    .where('id', '=', id)
    .where('status', '=', 'ended')
    .where('outcome', '=', 'completed')
    .where('end_reason', 'in', [...refinable])
    .returning(callColumns)
    .executeTakeFirst()

/** These closed calls' `ended` events wait for their workers' ends, `seconds` at most. */
export const holdCallEnds = async (db: Executor, { ids, seconds }: { ids: string[]; seconds: number }) => {
  if (ids.length === 0) return
  await db
    .updateTable('calls')
    .set({ end_held_until: sql`now() + make_interval(secs => ${seconds})` })
    .where('id', 'in', ids)
    .execute()
}

/**
 * Ends the wait of a call whose `ended` event was held: exactly one of any number of concurrent
 * releasers gets the call (to send its `ended` event and `call.ended`), the others undefined.
 */
export const releaseHeldEnd = (db: Executor, id: string): Promise<CallRow | undefined> =>
  db
    .updateTable('calls')
    .set({ end_held_until: null })
    .where('id', '=', id)
    .where('end_held_until', 'is not', null)
    .returning(callColumns)
    .executeTakeFirst()

/** Calls whose held end is overdue (its release job lost): the sweep releases them. */
export const listOverdueHeldEnds = (db: Executor, limit: number): Promise<Array<{ id: string }>> =>
  db
    .selectFrom('calls')
    .select('id')
    .where('end_held_until', '<', sql<Date>`now()`)
    .orderBy('end_held_until')
    .limit(limit)
    .execute()
