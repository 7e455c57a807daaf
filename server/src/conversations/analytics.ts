import type { Analytics, AnalyticsQuery, CallOutcome } from '@parley/shared'
import { sql } from 'kysely'
import { toUsd } from '../billing/index.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'

const DAY_MS = 24 * 60 * 60 * 1000
const MAX_DAYS = 366

type ConversationDay = {
  agent_id: string
  day: string
  conversations: string | number
  messages: string | number | null
  cost: string | number | null
  first_reply: string | number | null
}
type CallDay = {
  agent_id: string
  day: string
  calls: string | number
  seconds: string | number | null
  cost: string | number | null
  average_seconds: string | number | null
}
type OutcomeDay = { agent_id: string; day: string; outcome: string; count: string | number }

const startOfToday = () => new Date(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`)
const number = (value: string | number | null) => (value === null ? 0 : Number(value))
const rounded = (value: number) => Math.round(value * 100) / 100

/**
 * GET /v1/analytics: per agent and per UTC day, four grouped SQL reads over the same tables the
 * API shows (conversations, whose message counters a trigger keeps, and calls), served by their
 * organization-and-time indexes; the rows are merged here.
 */
export const getAnalytics = async (
  ctx: AppContext,
  { organizationId, query }: { organizationId: string; query: AnalyticsQuery },
): Promise<Analytics> => {
  const last = query.to ? new Date(`${query.to}T00:00:00.000Z`) : startOfToday()
  const from = query.from ? new Date(`${query.from}T00:00:00.000Z`) : new Date(last.getTime() - 29 * DAY_MS)
  const until = new Date(last.getTime() + DAY_MS)
  if (until <= from) throw AppError.badRequest('to: must not be before from')
  if ((until.getTime() - from.getTime()) / DAY_MS > MAX_DAYS)
    throw AppError.badRequest(`to: at most ${MAX_DAYS} days after from`)
  const agent = (column: string) => (query.agentId ? sql`and ${sql.ref(column)} = ${query.agentId}` : sql``)
  const [conversations, calls, outcomes, callOutcomes] = await Promise.all([
    sql<ConversationDay>`
      select agent_id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day,
        count(*) as conversations, sum(message_count) as messages, sum(cost_micros) as cost,
        avg(first_reply_seconds) as first_reply
      from conversations
      where organization_id = ${organizationId} and created_at >= ${from} and created_at < ${until}
        ${agent('agent_id')}
      group by 1, 2`.execute(ctx.db),
    sql<CallDay>`
      select agent_id, to_char(started_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*) as calls,
        sum(duration_seconds) as seconds, sum(cost_micros) as cost, avg(duration_seconds) as average_seconds
      from calls
      where organization_id = ${organizationId} and started_at >= ${from} and started_at < ${until}
        ${agent('agent_id')}
      group by 1, 2`.execute(ctx.db),
    sql<OutcomeDay>`
      select agent_id, day, outcome, count(*) as count from (
        select agent_id, to_char(started_at at time zone 'UTC', 'YYYY-MM-DD') as day,
          'call.' || coalesce(end_reason, status) as outcome
        from calls where organization_id = ${organizationId} and started_at >= ${from} and started_at < ${until}
          ${agent('agent_id')}
        union all
        select agent_id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD'), 'conversation.' || status
        from conversations where organization_id = ${organizationId} and created_at >= ${from}
          and created_at < ${until} ${agent('agent_id')}
      ) o
      group by 1, 2, 3`.execute(ctx.db),
    sql<OutcomeDay>`
      select agent_id, to_char(started_at at time zone 'UTC', 'YYYY-MM-DD') as day, outcome, count(*) as count
      from calls
      where organization_id = ${organizationId} and started_at >= ${from} and started_at < ${until}
        and outcome is not null ${agent('agent_id')}
      group by 1, 2, 3`.execute(ctx.db),
  ])
  const rows = new Map<string, Analytics['data'][number]>()
  const rowOf = (agentId: string, date: string) => {
    const id = `${date}|${agentId}`
    let row = rows.get(id)
    if (!row) {
      row = {
        date,
        agentId,
        conversations: 0,
        messages: 0,
        replyCostUsd: 0,
        averageFirstReplySeconds: null,
        calls: 0,
        callMinutes: 0,
        callCostUsd: 0,
        averageCallSeconds: null,
        outcomes: {},
        callOutcomes: {},
      }
      rows.set(id, row)
    }
    return row
  }
  for (const day of conversations.rows) {
    const row = rowOf(day.agent_id, day.day)
    row.conversations = number(day.conversations)
    row.messages = number(day.messages)
    row.replyCostUsd = toUsd(number(day.cost))
    row.averageFirstReplySeconds = day.first_reply === null ? null : rounded(Number(day.first_reply))
  }
  for (const day of calls.rows) {
    const row = rowOf(day.agent_id, day.day)
    row.calls = number(day.calls)
    row.callMinutes = rounded(number(day.seconds) / 60)
    row.callCostUsd = toUsd(number(day.cost))
    row.averageCallSeconds = day.average_seconds === null ? null : rounded(Number(day.average_seconds))
  }
  for (const outcome of outcomes.rows)
    rowOf(outcome.agent_id, outcome.day).outcomes[outcome.outcome] = number(outcome.count)
  for (const outcome of callOutcomes.rows)
    rowOf(outcome.agent_id, outcome.day).callOutcomes[outcome.outcome as CallOutcome] = number(outcome.count)
  const data = [...rows.values()].sort(
    (a, b) => a.date.localeCompare(b.date) || a.agentId.localeCompare(b.agentId),
  )
  return { success: true, data }
}
