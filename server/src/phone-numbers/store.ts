import { type Selectable, sql } from 'kysely'
import type { Database, Executor } from '../db/index.ts'
import { countRows, newestFirstPage } from '../db/page-store.ts'

export type PhoneNumberRow = {
  id: string
  organizationId: string
  number: string
  label: string | null
  outboundAgentId: string | null
  sipTrunkId: string
  createdAt: Date
  updatedAt: Date
}

export type PhoneNumberFields = Pick<PhoneNumberRow, 'number' | 'label' | 'outboundAgentId' | 'sipTrunkId'>

const toRow = (row: Selectable<Database['phone_numbers']>): PhoneNumberRow => ({
  id: row.id,
  organizationId: row.organization_id,
  number: row.number,
  label: row.label,
  outboundAgentId: row.outbound_agent_id,
  sipTrunkId: row.sip_trunk_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const toColumns = (fields: Partial<PhoneNumberFields>) => {
  const columns = {
    number: fields.number,
    label: fields.label,
    outbound_agent_id: fields.outboundAgentId,
    sip_trunk_id: fields.sipTrunkId,
  }
  return Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined))
}

/** Throws PostgreSQL's unique_violation when the organization already has the number. */
export const insertPhoneNumber = async (
  db: Executor,
  { id, organizationId, fields }: { id: string; organizationId: string; fields: PhoneNumberFields },
) => {
  const row = await db
    .insertInto('phone_numbers')
    .values({
      id,
      organization_id: organizationId,
      number: fields.number,
      label: fields.label,
      outbound_agent_id: fields.outboundAgentId,
      sip_trunk_id: fields.sipTrunkId,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  return toRow(row)
}

export const findPhoneNumber = async (
  db: Executor,
  { organizationId, id }: { organizationId: string; id: string },
) => {
  const row = await db
    .selectFrom('phone_numbers')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst()
  return row ? toRow(row) : undefined
}

export const listPhoneNumbers = async (
  db: Executor,
  query: { organizationId: string; offset: number; limit: number },
) => {
  const base = db.selectFrom('phone_numbers').where('organization_id', '=', query.organizationId)
  const [rows, total] = await Promise.all([
    base.selectAll().$call(newestFirstPage(query)).execute(),
    countRows(base),
  ])
  return { phoneNumbers: rows.map(toRow), total }
}

/** Throws PostgreSQL's unique_violation when the new number is already the organization's. */
export const updatePhoneNumber = async (
  db: Executor,
  { organizationId, id, fields }: { organizationId: string; id: string; fields: Partial<PhoneNumberFields> },
) => {
  const row = await db
    .updateTable('phone_numbers')
    .set({ ...toColumns(fields), updated_at: sql`now()` } as never)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()
  return row ? toRow(row) : undefined
}

export const deletePhoneNumber = async (
  db: Executor,
  { organizationId, id }: { organizationId: string; id: string },
) => {
  const result = await db
    .deleteFrom('phone_numbers')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/**
 * The number a call's transfer dials out on (a web caller's cold transfer, every warm one): the
 * organization's number whose outbound agent is `agentId`, else its oldest number.
 */
export const findTransferLine = async (
  db: Executor,
  { organizationId, agentId }: { organizationId: string; agentId: string },
) => {
  const row = await db
    .selectFrom('phone_numbers')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy(sql`outbound_agent_id is not distinct from ${agentId}`, 'desc')
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(1)
    .executeTakeFirst()
  return row ? toRow(row) : undefined
}
