import { type Selectable, sql } from 'kysely'
import type { Database, Executor } from '../db/index.ts'
import { countRows, newestFirstPage } from '../db/page-store.ts'

export type DeliveryRow = {
  id: string
  organizationId: string
  agentId: string
  event: string
  url: string
  payload: Record<string, unknown>
  status: 'pending' | 'succeeded' | 'failed'
  attempts: number
  lastStatusCode: number | null
  lastError: string | null
  lastResponse: string | null
  createdAt: Date
  lastAttemptAt: Date | null
  nextAttemptAt: Date | null
}

const toRow = (row: Selectable<Database['webhook_deliveries']>): DeliveryRow => ({
  id: row.id,
  organizationId: row.organization_id,
  agentId: row.agent_id,
  event: row.event,
  url: row.url,
  payload: row.payload,
  status: row.status,
  attempts: row.attempts,
  lastStatusCode: row.last_status_code,
  lastError: row.last_error,
  lastResponse: row.last_response ?? null,
  createdAt: row.created_at,
  lastAttemptAt: row.last_attempt_at,
  nextAttemptAt: row.next_attempt_at,
})

export const insertDelivery = async (
  db: Executor,
  delivery: Pick<DeliveryRow, 'id' | 'organizationId' | 'agentId' | 'event' | 'url' | 'payload'>,
) => {
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: delivery.id,
      organization_id: delivery.organizationId,
      agent_id: delivery.agentId,
      event: delivery.event,
      url: delivery.url,
      payload: JSON.stringify(delivery.payload),
    })
    .execute()
}

export const findDelivery = async (db: Executor, id: string) => {
  const row = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst()
  return row ? toRow(row) : undefined
}

/** Records one attempt; `nextAttemptAt` null with status pending never happens (pending always has a next try). */
export const recordAttempt = async (
  db: Executor,
  attempt: {
    id: string
    status: DeliveryRow['status']
    statusCode: number | null
    error: string | null
    response: string | null
    nextAttemptAt: Date | null
  },
) => {
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: attempt.status,
      attempts: sql`attempts + 1`,
      last_status_code: attempt.statusCode,
      last_error: attempt.error,
      last_response: attempt.response,
      last_attempt_at: sql`now()`,
      next_attempt_at: attempt.nextAttemptAt,
    })
    .where('id', '=', attempt.id)
    .execute()
}

export const listDeliveries = async (
  db: Executor,
  {
    agentId,
    organizationId,
    offset,
    limit,
  }: { agentId: string; organizationId: string; offset: number; limit: number },
) => {
  const base = db
    .selectFrom('webhook_deliveries')
    .where('agent_id', '=', agentId)
    .where('organization_id', '=', organizationId)
  const [rows, total] = await Promise.all([
    base.selectAll().$call(newestFirstPage({ offset, limit })).execute(),
    countRows(base),
  ])
  return { deliveries: rows.map(toRow), total }
}
