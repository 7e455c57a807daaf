import type { CallTransfer } from '@parley/shared'
import type { Selectable } from 'kysely'
import type { Database, Executor } from '../db/index.ts'

type Row = Selectable<Database['call_transfers']>

const present = (row: Row): CallTransfer => ({
  id: row.id,
  agentId: row.agent_id,
  destinationName: row.destination_name,
  destination: row.destination,
  mode: row.mode,
  method: row.method,
  status: row.status,
  sipStatus: row.sip_status,
  createdAt: new Date(row.created_at).toISOString(),
  finishedAt: row.finished_at === null ? null : new Date(row.finished_at).toISOString(),
})

export type NewTransfer = {
  id: string
  callId: string
  organizationId: string
  agentId: string
  destinationName: string
  destination: string
  mode: Row['mode']
  method: Row['method']
  status: Row['status']
  sipStatus: number | null
  /** A cold transfer is recorded with its result; a warm one starts dialing. */
  finished: boolean
}

export const insertTransfer = async (db: Executor, transfer: NewTransfer) =>
  present(
    await db
      .insertInto('call_transfers')
      .values({
        id: transfer.id,
        call_id: transfer.callId,
        organization_id: transfer.organizationId,
        agent_id: transfer.agentId,
        destination_name: transfer.destinationName,
        destination: transfer.destination,
        mode: transfer.mode,
        method: transfer.method,
        status: transfer.status,
        sip_status: transfer.sipStatus,
        finished_at: transfer.finished ? new Date() : null,
      })
      .returningAll()
      .executeTakeFirstOrThrow(),
  )

/** Records a warm transfer's result once: null when it is not dialing (unknown, or reported before). */
export const finishTransfer = async (
  db: Executor,
  { callId, id, status }: { callId: string; id: string; status: Exclude<Row['status'], 'dialing'> },
) => {
  const row = await db
    .updateTable('call_transfers')
    .set({ status, finished_at: new Date() })
    .where('id', '=', id)
    .where('call_id', '=', callId)
    .where('status', '=', 'dialing')
    .returningAll()
    .executeTakeFirst()
  return row ? present(row) : null
}

export const findTransfer = async (db: Executor, { callId, id }: { callId: string; id: string }) => {
  const row = await db
    .selectFrom('call_transfers')
    .selectAll()
    .where('id', '=', id)
    .where('call_id', '=', callId)
    .executeTakeFirst()
  return row ? present(row) : undefined
}

export const listTransfers = async (db: Executor, callId: string) =>
  (
    await db
      .selectFrom('call_transfers')
      .selectAll()
      .where('call_id', '=', callId)
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .execute()
  ).map(present)
