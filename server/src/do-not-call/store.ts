import type { Selectable } from 'kysely'
import type { Database, Executor } from '../db/index.ts'
import { countRows, newestFirstPage } from '../db/page-store.ts'

export type DoNotCallRow = {
  id: string
  organizationId: string
  phoneNumber: string
  sourceKind: 'api' | 'import' | 'call' | 'conversation'
  source: string
  note: string | null
  createdAt: Date
}

export type NewDoNotCall = Pick<DoNotCallRow, 'id' | 'phoneNumber' | 'sourceKind' | 'source' | 'note'>

const toRow = (row: Selectable<Database['do_not_call']>): DoNotCallRow => ({
  id: row.id,
  organizationId: row.organization_id,
  phoneNumber: row.phone_number,
  sourceKind: row.source_kind,
  source: row.source,
  note: row.note,
  createdAt: row.created_at,
})

/** Rows per insert statement (7 parameters a row, far below PostgreSQL's 65,535). */
const INSERT_CHUNK = 2000

/**
 * Adds the numbers not listed yet; a listed number keeps its entry (first source and time win).
 * Answers the rows inserted. Several chunks: pass a transaction so they commit together.
 */
export const insertEntries = async (
  db: Executor,
  { organizationId, entries }: { organizationId: string; entries: NewDoNotCall[] },
) => {
  const inserted: DoNotCallRow[] = []
  for (let at = 0; at < entries.length; at += INSERT_CHUNK) {
    const rows = await db
      .insertInto('do_not_call')
      .values(
        entries.slice(at, at + INSERT_CHUNK).map((entry) => ({
          organization_id: organizationId,
          phone_number: entry.phoneNumber,
          id: entry.id,
          source_kind: entry.sourceKind,
          source: entry.source,
          note: entry.note,
        })),
      )
      .onConflict((conflict) => conflict.columns(['organization_id', 'phone_number']).doNothing())
      .returningAll()
      .execute()
    inserted.push(...rows.map(toRow))
  }
  return inserted
}

export const findEntry = async (
  db: Executor,
  { organizationId, phoneNumber }: { organizationId: string; phoneNumber: string },
) => {
  const row = await db
    .selectFrom('do_not_call')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('phone_number', '=', phoneNumber)
    .executeTakeFirst()
  return row ? toRow(row) : undefined
}

/** Which of `phoneNumbers` the organization lists (one statement, any number of them). */
export const findListed = async (
  db: Executor,
  { organizationId, phoneNumbers }: { organizationId: string; phoneNumbers: readonly string[] },
) => {
  if (phoneNumbers.length === 0) return new Set<string>()
  const rows = await db
    .selectFrom('do_not_call')
    .select('phone_number')
    .where('organization_id', '=', organizationId)
    .where('phone_number', 'in', [...new Set(phoneNumbers)])
    .execute()
  return new Set(rows.map((row) => row.phone_number))
}

export const listEntries = async (
  db: Executor,
  query: { organizationId: string; phoneNumber?: string; offset: number; limit: number },
) => {
  let base = db.selectFrom('do_not_call').where('organization_id', '=', query.organizationId)
  if (query.phoneNumber !== undefined) base = base.where('phone_number', '=', query.phoneNumber)
  const [rows, total] = await Promise.all([
    base.selectAll().$call(newestFirstPage(query)).execute(),
    countRows(base),
  ])
  return { entries: rows.map(toRow), total }
}

export const deleteEntry = async (
  db: Executor,
  { organizationId, phoneNumber }: { organizationId: string; phoneNumber: string },
) => {
  const row = await db
    .deleteFrom('do_not_call')
    .where('organization_id', '=', organizationId)
    .where('phone_number', '=', phoneNumber)
    .returningAll()
    .executeTakeFirst()
  return row ? toRow(row) : undefined
}
