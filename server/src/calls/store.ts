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

/**
 * Moves an active call to ended/failed and fixes its duration from the database clock. The
 * status condition makes exactly one caller the winner; the others get undefined.
 */
export const markCallClosed = (
  db: Executor,
  { roomName, status, reason }: { roomName: string; status: 'ended' | 'failed'; reason: string },
): Promise<CallRow | undefined> =>
  db
    .updateTable('calls')
    .set({
      status,
      end_reason: reason,
      ended_at: sql`now()`,
      duration_seconds: sql`greatest(0, ceil(extract(epoch from (now() - started_at))))::integer`,
    })
    .where('room_name', '=', roomName)
    .where('status', '=', 'active')
    .returning(callColumns)
    .executeTakeFirst()

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

export const setCallCost = async (db: Executor, { id, costMicros }: { id: string; costMicros: number }) => {
  await db.updateTable('calls').set({ cost_micros: costMicros }).where('id', '=', id).execute()
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
