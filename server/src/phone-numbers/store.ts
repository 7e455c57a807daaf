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
  inboundAgentId: string | null
  livekitTrunkId: string | null
  livekitDispatchRuleId: string | null
  inboundSyncedAt: Date | null
  inboundSyncError: string | null
}

export type PhoneNumberFields = Pick<
  PhoneNumberRow,
  'number' | 'label' | 'outboundAgentId' | 'sipTrunkId' | 'inboundAgentId'
>

const toRow = (row: Selectable<Database['phone_numbers']>): PhoneNumberRow => ({
  id: row.id,
  organizationId: row.organization_id,
  number: row.number,
  label: row.label,
  outboundAgentId: row.outbound_agent_id,
  sipTrunkId: row.sip_trunk_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  inboundAgentId: row.inbound_agent_id,
  livekitTrunkId: row.livekit_inbound_trunk_id,
  livekitDispatchRuleId: row.livekit_dispatch_rule_id,
  inboundSyncedAt: row.inbound_synced_at,
  inboundSyncError: row.inbound_sync_error,
})

const toColumns = (fields: Partial<PhoneNumberFields>) => {
  const columns = {
    number: fields.number,
    label: fields.label,
    outbound_agent_id: fields.outboundAgentId,
    sip_trunk_id: fields.sipTrunkId,
    inbound_agent_id: fields.inboundAgentId,
  }
  return Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined))
}

/** Throws PostgreSQL's unique_violation when the organization already has the number. */
export const insertPhoneNumber = async (
  db: Executor,
  {
    id,
    organizationId,
    fields,
  }: {
    id: string
    organizationId: string
    fields: Omit<PhoneNumberFields, 'inboundAgentId'> & { inboundAgentId?: string | null }
  },
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
      inbound_agent_id: fields.inboundAgentId ?? null,
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

/** Deletes the number and answers it as it was (its LiveKit ids go with it), or undefined. */
export const deletePhoneNumberReturning = async (
  db: Executor,
  { organizationId, id }: { organizationId: string; id: string },
) => {
  const row = await db
    .deleteFrom('phone_numbers')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()
  return row ? toRow(row) : undefined
}

/** A number by id alone: the worker's inbound open names it (from LiveKit's dispatch metadata). */
export const findPhoneNumberById = async (db: Executor, id: string) => {
  const row = await db.selectFrom('phone_numbers').selectAll().where('id', '=', id).executeTakeFirst()
  return row ? toRow(row) : undefined
}

/** Another organization's number that already answers `number` (LiveKit routes a number once). */
export const findAnsweringElsewhere = async (
  db: Executor,
  { number, organizationId }: { number: string; organizationId: string },
) =>
  db
    .selectFrom('phone_numbers')
    .select('id')
    .where('number', '=', number)
    .where('organization_id', '<>', organizationId)
    .where('inbound_agent_id', 'is not', null)
    .executeTakeFirst()

/** Every number that answers calls, oldest first (the reconcile job), or one page of them. */
export const listAnsweringNumbers = async (db: Executor) =>
  (
    await db
      .selectFrom('phone_numbers')
      .selectAll()
      .where('inbound_agent_id', 'is not', null)
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .execute()
  ).map(toRow)

/** Which of these numbers exist at all. */
export const existingNumberIds = async (db: Executor, ids: string[]) =>
  ids.length === 0
    ? new Set<string>()
    : new Set(
        (await db.selectFrom('phone_numbers').select('id').where('id', 'in', ids).execute()).map(
          (row) => row.id,
        ),
      )

/** What the last sync of the number's LiveKit trunk and rule found or made. */
export const setInboundSync = async (
  db: Executor,
  input: {
    id: string
    trunkId: string | null
    ruleId: string | null
    syncedAt: Date | null
    error: string | null
  },
) => {
  const row = await db
    .updateTable('phone_numbers')
    .set({
      livekit_inbound_trunk_id: input.trunkId,
      livekit_dispatch_rule_id: input.ruleId,
      inbound_synced_at: input.syncedAt,
      inbound_sync_error: input.error,
    })
    .where('id', '=', input.id)
    .returningAll()
    .executeTakeFirst()
  return row ? toRow(row) : undefined
}

/** Records a failed sync, keeping the ids known so far. */
export const setInboundSyncError = async (db: Executor, { id, error }: { id: string; error: string }) => {
  await db.updateTable('phone_numbers').set({ inbound_sync_error: error }).where('id', '=', id).execute()
}
