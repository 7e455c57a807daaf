import { sql } from 'kysely'
import type { Executor } from '../db/index.ts'

export type CallRow = {
  id: string
  organizationId: string
  agentId: string
  userId: string | null
  keyId: string | null
  roomName: string
  architecture: 'pipeline' | 'realtime'
  direction: 'web' | 'outbound'
  status: 'active' | 'ended' | 'failed'
  startedAt: Date
  endedAt: Date | null
  durationSeconds: number | null
  costMicros: number
  endReason: string | null
  phoneNumber: string | null
  batchJobId: string | null
  batchContactId: string | null
  createdAt: Date
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
>

/** Still started_at = created_at: nobody ever joined (see markCallConnected). */
export const hasConnected = (call: CallRow) => call.startedAt.getTime() !== call.createdAt.getTime()

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
  'batch_job_id as batchJobId',
  'batch_contact_id as batchContactId',
  'created_at as createdAt',
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
    })
    .returning(callColumns)
    .executeTakeFirstOrThrow()

/** insertCall for many rows in one statement (the batch dialer opens a claim round's calls together). */
export const insertCalls = async (db: Executor, calls: NewCall[]): Promise<void> => {
  if (calls.length === 0) return
  const column = <K extends keyof NewCall>(key: K) => calls.map((call) => call[key])
  await sql`
    insert into calls (id, organization_id, agent_id, user_id, key_id, room_name, architecture, direction,
      phone_number, batch_job_id, batch_contact_id)
    select * from unnest(
      ${column('id')}::text[], ${column('organizationId')}::text[], ${column('agentId')}::text[],
      ${column('userId')}::text[], ${column('keyId')}::text[], ${column('roomName')}::text[],
      ${column('architecture')}::text[], ${column('direction')}::text[], ${column('phoneNumber')}::text[],
      ${column('batchJobId')}::text[], ${column('batchContactId')}::text[]
    )
  `.execute(db)
}

export const findCall = (
  db: Executor,
  { organizationId, id }: { organizationId: string; id: string },
): Promise<CallRow | undefined> =>
  db
    .selectFrom('calls')
    .select(callColumns)
    .where('id', '=', id)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst()

export type CloseRequest = { roomName: string; status: 'ended' | 'failed'; reason: string }

/**
 * Moves the active calls of these rooms to ended/failed, each with its own status and reason, and
 * fixes their durations from the database clock, in one statement. The status condition makes
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
        ${ordered.map((r) => r.reason)}::text[]
      ) as closing(room_name, status, reason)
    ),
    locked as (
      select id from calls where room_name in (select room_name from closing) and status = 'active'
      order by room_name
      for update
    )
    update calls
    set status = closing.status, end_reason = closing.reason, ended_at = now(),
      duration_seconds = greatest(0, ceil(extract(epoch from (now() - calls.started_at))))::integer
    from closing
    where calls.room_name = closing.room_name and calls.id in (select id from locked)
      and calls.status = 'active'
    returning ${returnedCallColumns}
  `.execute(db)
  return rows
}

/**
 * The first join of the person (browser user or answered callee) restarts the billing clock, so
 * waiting and ringing are not billed. A call row is inserted with started_at = created_at (both
 * the insert's now()); once they differ the call has connected, and later joins (reconnects)
 * change nothing. At least 1 ms after created_at, so the two differ in a JavaScript Date too.
 */
export const markCallConnected = async (db: Executor, roomName: string) => {
  const result = await db
    .updateTable('calls')
    .set({ started_at: sql`greatest(now(), created_at + interval '1 millisecond')` })
    .where('room_name', '=', roomName)
    .where('status', '=', 'active')
    .whereRef('started_at', '=', 'created_at')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

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

export type CallFilter = {
  organizationId: string
  agentId?: string | undefined
  status?: CallRow['status'] | undefined
  batchJobId?: string | undefined
}

const filtered = (db: Executor, filter: CallFilter) => {
  let query = db.selectFrom('calls').where('organization_id', '=', filter.organizationId)
  if (filter.agentId) query = query.where('agent_id', '=', filter.agentId)
  if (filter.status) query = query.where('status', '=', filter.status)
  if (filter.batchJobId) query = query.where('batch_job_id', '=', filter.batchJobId)
  return query
}

/** Newest first, one page of an organization's calls and the total for its pagination. */
export const listCalls = async (
  db: Executor,
  filter: CallFilter & { limit: number; offset: number },
): Promise<{ calls: CallRow[]; total: number }> => {
  const calls = await filtered(db, filter)
    .select(callColumns)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit)
    .offset(filter.offset)
    .execute()
  const counted = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<string>().as('total'))
    .executeTakeFirstOrThrow()
  return { calls, total: Number(counted.total) }
}

export type TranscriptLineRow = {
  position: number
  role: 'user' | 'assistant'
  content: string
  spokenAt: Date
}

export const listTranscript = (db: Executor, callId: string): Promise<TranscriptLineRow[]> =>
  db
    .selectFrom('call_transcript_lines')
    .select(['position', 'role', 'content', 'spoken_at as spokenAt'])
    .where('call_id', '=', callId)
    .orderBy('position')
    .execute()

/**
 * Appends after the last stored line. Run inside a transaction that locked the call row
 * (`lockCall`), so two concurrent appends cannot take the same positions.
 */
export const appendTranscript = async (
  db: Executor,
  {
    callId,
    organizationId,
    lines,
  }: {
    callId: string
    organizationId: string
    lines: Array<{ id: string; role: 'user' | 'assistant'; content: string; spokenAt: Date }>
  },
) => {
  const last = await db
    .selectFrom('call_transcript_lines')
    .select((eb) => eb.fn.max<number | null>('position').as('position'))
    .where('call_id', '=', callId)
    .executeTakeFirst()
  const start = (last?.position ?? 0) + 1
  await db
    .insertInto('call_transcript_lines')
    .values(
      lines.map((line, index) => ({
        id: line.id,
        call_id: callId,
        organization_id: organizationId,
        role: line.role,
        content: line.content,
        spoken_at: line.spokenAt,
        position: start + index,
      })),
    )
    .execute()
  return start + lines.length - 1
}

/** Takes the call row's lock for the rest of the transaction. */
export const lockCall = (db: Executor, id: string): Promise<CallRow | undefined> =>
  db.selectFrom('calls').select(callColumns).where('id', '=', id).forUpdate().executeTakeFirst()

export const findCallById = (db: Executor, id: string): Promise<CallRow | undefined> =>
  db.selectFrom('calls').select(callColumns).where('id', '=', id).executeTakeFirst()
