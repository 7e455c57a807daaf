import type { ExportKind, ReplySource } from '@parley/shared'
import { sql } from 'kysely'
import { toUsd } from '../billing/index.ts'
import { atExactTime, exactTime } from '../db/exact-time.ts'
import type { Executor } from '../db/index.ts'
import { auditLogSource } from './audit-log-source.ts'
import type { After, ExportRecord, Scope, Source } from './source-types.ts'

export type { After, ExportRecord, Scope, Source } from './source-types.ts'

const within = (column: string, { from, to }: Scope) =>
  sql.join(
    [
      sql`true`,
      ...(from ? [sql`${sql.ref(column)} >= ${from}`] : []),
      ...(to ? [sql`${sql.ref(column)} < ${to}`] : []),
    ],
    sql` and `,
  )

const afterKey = (created: string, id: string, after: After) =>
  after
    ? sql`(${sql.ref(created)}, ${sql.ref(id)}) > (${atExactTime(after.createdAt)}, ${after.id})`
    : sql`true`

const iso = (value: Date | string | null) =>
  value === null ? null : value instanceof Date ? value.toISOString() : new Date(value).toISOString()

const lastOf = (rows: Array<{ id: string; cursor_at: string }>): After => {
  const last = rows.at(-1)
  return last ? { createdAt: last.cursor_at, id: last.id } : null
}

/** Lines of a transcript as one readable cell: "user: …" under each other. */
const transcriptCell = (lines: Array<{ role: string; content: string }>) =>
  lines.map((line) => `${line.role}: ${line.content}`).join('\n')

/** Map.groupBy, which Node 20 lacks. */
const groupBy = <T>(items: T[], keyOf: (item: T) => string) => {
  const groups = new Map<string, T[]>()
  for (const item of items) {
    const key = keyOf(item)
    const group = groups.get(key)
    if (group) group.push(item)
    else groups.set(key, [item])
  }
  return groups
}

/** The records of one of the organization's tables created within the scope. */
const countIn =
  (table: 'conversations' | 'calls' | 'credit_ledger') => async (db: Executor, scope: Scope) => {
    const { rows } = await sql<{ count: string }>`select count(*) from ${sql.table(table)}
      where organization_id = ${scope.organizationId} and ${within('created_at', scope)}`.execute(db)
    return Number(rows[0]?.count ?? 0)
  }

type AnalysisRow = {
  analysis_summary: string | null
  analysis_sentiment: string | null
  analysis_outcome: string | null
  analysis_data: Record<string, unknown> | null
}
const analysisColumns = [
  'analysis_summary',
  'analysis_sentiment',
  'analysis_outcome',
  'analysis_data',
] as const

/** A conversation's or call's post-call analysis as a record holds it; null before any. */
const analysisOf = (row: AnalysisRow) =>
  row.analysis_summary
    ? {
        summary: row.analysis_summary,
        sentiment: row.analysis_sentiment,
        outcome: row.analysis_outcome,
        data: row.analysis_data,
      }
    : null

/** The analysis of a record as CSV cells, in the order of analysisColumns. */
const analysisCells = (record: ExportRecord) => {
  const analysis = record.analysis as ReturnType<typeof analysisOf>
  return [
    analysis?.summary ?? null,
    analysis?.sentiment ?? null,
    analysis?.outcome ?? null,
    analysis?.data ? JSON.stringify(analysis.data) : null,
  ]
}

type ConversationRow = {
  cursor_at: string
  id: string
  agent_id: string
  agent_name: string
  status: string
  user_identifier: string | null
  metadata: Record<string, unknown>
  cost_micros: string | number
  created_at: Date
  ended_at: Date | null
} & AnalysisRow

const conversations: Source = {
  columns: [
    'id',
    'agent_id',
    'agent_name',
    'status',
    'user_identifier',
    'created_at',
    'ended_at',
    'cost_usd',
    'message_count',
    'transcript',
    ...analysisColumns,
    'metadata',
    'sources',
  ],
  count: countIn('conversations'),
  page: async (db, { scope, after, limit }) => {
    const { rows } = await sql<ConversationRow>`
      select id, agent_id, agent_name, status, user_identifier, metadata, cost_micros, created_at,
        ${exactTime('created_at')} as cursor_at,
        ended_at, analysis_summary, analysis_sentiment, analysis_outcome, analysis_data
      from conversations
      where organization_id = ${scope.organizationId} and ${within('created_at', scope)}
        and ${afterKey('created_at', 'id', after)}
      order by created_at, id limit ${limit}`.execute(db)
    const ids = rows.map((row) => row.id)
    const messages =
      ids.length === 0
        ? []
        : (
            await sql<{
              conversation_id: string
              role: string
              content: string
              channel: string
              call_id: string | null
              sources: ReplySource[] | null
              created_at: Date
            }>`select conversation_id, role, content, channel, call_id, sources, created_at from chat_messages
              where conversation_id = any(${ids}::text[]) order by conversation_id, created_at, id`.execute(
              db,
            )
          ).rows
    const byConversation = groupBy(messages, (message) => message.conversation_id)
    return {
      last: lastOf(rows),
      records: rows.map((row) => ({
        id: row.id,
        agent_id: row.agent_id,
        agent_name: row.agent_name,
        status: row.status,
        user_identifier: row.user_identifier,
        created_at: iso(row.created_at),
        ended_at: iso(row.ended_at),
        cost_usd: toUsd(Number(row.cost_micros)),
        analysis: analysisOf(row),
        metadata: row.metadata,
        messages: (byConversation.get(row.id) ?? []).map((message) => ({
          role: message.role,
          content: message.content,
          channel: message.channel,
          call_id: message.call_id,
          // Assistant replies given knowledge passages: the sources the visitor was shown.
          ...(message.sources ? { sources: message.sources } : {}),
          created_at: iso(message.created_at),
        })),
      })),
    }
  },
  csvCells: (record) => {
    const messages = record.messages as Array<{ role: string; content: string; sources?: ReplySource[] }>
    return [
      record.id,
      record.agent_id,
      record.agent_name,
      record.status,
      record.user_identifier,
      record.created_at,
      record.ended_at,
      record.cost_usd,
      messages.length,
      transcriptCell(messages),
      ...analysisCells(record),
      JSON.stringify(record.metadata),
      sourcesCell(messages),
    ]
  },
}

/** The knowledge sources the conversation's replies used, once each: "title <url>" a line. */
const sourcesCell = (messages: Array<{ sources?: ReplySource[] }>) => {
  const lines = messages.flatMap((message) =>
    (message.sources ?? []).map(({ title, url }) => (url ? `${title} <${url}>` : title)),
  )
  return [...new Set(lines)].join('\n')
}

type CallRow = {
  cursor_at: string
  id: string
  agent_id: string
  direction: string
  status: string
  phone_number: string | null
  batch_job_id: string | null
  conversation_id: string | null
  started_at: Date
  ended_at: Date | null
  duration_seconds: number | null
  cost_micros: string | number
  end_reason: string | null
  outcome: string | null
  sip_status: number | null
  amd_verdict: string | null
  created_at: Date
} & AnalysisRow

const calls: Source = {
  columns: [
    'id',
    'agent_id',
    'direction',
    'status',
    'phone_number',
    'batch_job_id',
    'conversation_id',
    'started_at',
    'ended_at',
    'duration_seconds',
    'cost_usd',
    'end_reason',
    'outcome',
    'sip_status',
    'amd_verdict',
    'transcript',
    ...analysisColumns,
  ],
  count: countIn('calls'),
  page: async (db, { scope, after, limit }) => {
    const { rows } = await sql<CallRow>`
      select id, agent_id, direction, status, phone_number, batch_job_id, conversation_id, started_at,
        ended_at, duration_seconds, cost_micros, end_reason, outcome, sip_status, amd_verdict, created_at,
        ${exactTime('created_at')} as cursor_at,
        analysis_summary,
        analysis_sentiment, analysis_outcome, analysis_data
      from calls
      where organization_id = ${scope.organizationId} and ${within('created_at', scope)}
        and ${afterKey('created_at', 'id', after)}
      order by created_at, id limit ${limit}`.execute(db)
    const ids = rows.map((row) => row.id)
    const lines =
      ids.length === 0
        ? []
        : (
            await sql<{ call_id: string; role: string; content: string; spoken_at: Date }>`
              select call_id, role, content, spoken_at from call_transcript_lines
              where call_id = any(${ids}::text[]) order by call_id, position`.execute(db)
          ).rows
    const byCall = groupBy(lines, (line) => line.call_id)
    return {
      last: lastOf(rows),
      records: rows.map((row) => ({
        id: row.id,
        agent_id: row.agent_id,
        direction: row.direction,
        status: row.status,
        phone_number: row.phone_number,
        batch_job_id: row.batch_job_id,
        conversation_id: row.conversation_id,
        started_at: iso(row.started_at),
        ended_at: iso(row.ended_at),
        duration_seconds: row.duration_seconds,
        cost_usd: toUsd(Number(row.cost_micros)),
        end_reason: row.end_reason,
        outcome: row.outcome,
        sip_status: row.sip_status,
        amd_verdict: row.amd_verdict,
        analysis: analysisOf(row),
        transcript: (byCall.get(row.id) ?? []).map((line) => ({
          role: line.role,
          content: line.content,
          spoken_at: iso(line.spoken_at),
        })),
      })),
    }
  },
  csvCells: (record) => [
    record.id,
    record.agent_id,
    record.direction,
    record.status,
    record.phone_number,
    record.batch_job_id,
    record.conversation_id,
    record.started_at,
    record.ended_at,
    record.duration_seconds,
    record.cost_usd,
    record.end_reason,
    record.outcome,
    record.sip_status,
    record.amd_verdict,
    transcriptCell(record.transcript as Array<{ role: string; content: string }>),
    ...analysisCells(record),
  ],
}

type ContactRow = {
  cursor_at: string
  id: string
  batch_job_id: string
  job_name: string
  position: number
  phone: string
  name: string | null
  fields: Record<string, unknown>
  status: string
  attempts: number
  last_outcome: string | null
  last_error: string | null
  call_id: string | null
  updated_at: Date
  created_at: Date
}

/** A contact has no creation time of its own: its job's orders and bounds it. */
const batchContacts: Source = {
  columns: [
    'batch_job_id',
    'job_name',
    'position',
    'phone',
    'name',
    'status',
    'attempts',
    'last_outcome',
    'last_error',
    'call_id',
    'updated_at',
    'fields',
  ],
  count: async (db, scope) => {
    const { rows } = await sql<{ count: string }>`select count(*) from batch_contacts c
      join batch_jobs j on j.id = c.batch_job_id
      where c.organization_id = ${scope.organizationId} and ${within('j.created_at', scope)}`.execute(db)
    return Number(rows[0]?.count ?? 0)
  },
  page: async (db, { scope, after, limit }) => {
    const { rows } = await sql<ContactRow>`
      select c.id, c.batch_job_id, j.name as job_name, c.position, c.phone, c.name, c.fields, c.status,
        c.attempts, c.last_outcome, c.last_error, c.call_id, c.updated_at, j.created_at,
        ${exactTime('j.created_at')} as cursor_at
      from batch_contacts c join batch_jobs j on j.id = c.batch_job_id
      where c.organization_id = ${scope.organizationId} and ${within('j.created_at', scope)}
        and ${afterKey('j.created_at', 'c.id', after)}
      order by j.created_at, c.id limit ${limit}`.execute(db)
    return {
      last: lastOf(rows),
      records: rows.map((row) => ({
        batch_job_id: row.batch_job_id,
        job_name: row.job_name,
        position: row.position,
        phone: row.phone,
        name: row.name,
        status: row.status,
        attempts: row.attempts,
        last_outcome: row.last_outcome,
        last_error: row.last_error,
        call_id: row.call_id,
        updated_at: iso(row.updated_at),
        fields: row.fields,
      })),
    }
  },
  csvCells: (record) => [
    record.batch_job_id,
    record.job_name,
    record.position,
    record.phone,
    record.name,
    record.status,
    record.attempts,
    record.last_outcome,
    record.last_error,
    record.call_id,
    record.updated_at,
    JSON.stringify(record.fields),
  ],
}

type LedgerRow = {
  cursor_at: string
  id: string
  amount_micros: string | number
  balance_after_micros: string | number
  kind: string
  reason: string
  reference: string | null
  created_at: Date
}

const ledger: Source = {
  columns: ['id', 'created_at', 'kind', 'amount_usd', 'balance_after_usd', 'reason', 'reference'],
  count: countIn('credit_ledger'),
  page: async (db, { scope, after, limit }) => {
    const { rows } = await sql<LedgerRow>`
      select id, amount_micros, balance_after_micros, kind, reason, reference, created_at,
        ${exactTime('created_at')} as cursor_at
      from credit_ledger
      where organization_id = ${scope.organizationId} and ${within('created_at', scope)}
        and ${afterKey('created_at', 'id', after)}
      order by created_at, id limit ${limit}`.execute(db)
    return {
      last: lastOf(rows),
      records: rows.map((row) => ({
        id: row.id,
        created_at: iso(row.created_at),
        kind: row.kind,
        amount_usd: toUsd(Number(row.amount_micros)),
        balance_after_usd: toUsd(Number(row.balance_after_micros)),
        reason: row.reason,
        reference: row.reference,
      })),
    }
  },
  csvCells: (record) => ledger.columns.map((column) => record[column]),
}

export const sources: Record<ExportKind, Source> = {
  conversations,
  calls,
  batch_contacts: batchContacts,
  ledger,
  audit_log: auditLogSource,
}
