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

export const findCallByRoom = (db: Executor, roomName: string): Promise<CallRow | undefined> =>
  db.selectFrom('calls').select(callColumns).where('room_name', '=', roomName).executeTakeFirst()

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
