import { sql } from 'kysely'
import { atExactTime, exactTime } from '../db/exact-time.ts'
import type { Executor } from '../db/index.ts'
import type { After, ExportRecord, Scope } from './source-types.ts'

const columns = [
  'id',
  'created_at',
  'action',
  'target_kind',
  'target_id',
  'actor_kind',
  'actor_id',
  'ip',
  'details',
] as const

const within = ({ organizationId, from, to }: Scope) =>
  sql.join(
    [
      sql`organization_id = ${organizationId}`,
      ...(from ? [sql`created_at >= ${from}`] : []),
      ...(to ? [sql`created_at < ${to}`] : []),
    ],
    sql` and `,
  )

type Row = {
  id: string
  cursor_at: string
  created_at: Date
  action: string
  target_kind: string
  target_id: string | null
  actor_kind: string
  actor_id: string | null
  ip: string | null
  details: Record<string, unknown>
}

/** The export job's `audit_log` kind: the organization's audit entries, oldest first. */
export const auditLogSource = {
  columns,
  count: async (db: Executor, scope: Scope) => {
    const { rows } = await sql<{
      count: string
    }>`select count(*) from audit_log where ${within(scope)}`.execute(db)
    return Number(rows[0]?.count ?? 0)
  },
  page: async (db: Executor, { scope, after, limit }: { scope: Scope; after: After; limit: number }) => {
    const { rows } = await sql<Row>`
      select id, created_at, action, target_kind, target_id, actor_kind, actor_id, ip, details,
        ${exactTime('created_at')} as cursor_at
      from audit_log
      where ${within(scope)}
        and ${after ? sql`(created_at, id) > (${atExactTime(after.createdAt)}, ${after.id})` : sql`true`}
      order by created_at, id limit ${limit}`.execute(db)
    const last = rows.at(-1)
    return {
      last: last ? { createdAt: last.cursor_at, id: last.id } : null,
      records: rows.map(
        (row): ExportRecord => ({
          id: row.id,
          created_at: new Date(row.created_at).toISOString(),
          action: row.action,
          target_kind: row.target_kind,
          target_id: row.target_id,
          actor_kind: row.actor_kind,
          actor_id: row.actor_id,
          ip: row.ip,
          details: row.details,
        }),
      ),
    }
  },
  csvCells: (record: ExportRecord) =>
    columns.map((column) => (column === 'details' ? JSON.stringify(record[column]) : record[column])),
}
