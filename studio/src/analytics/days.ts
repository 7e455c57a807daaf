import type { Analytics } from '@parley/shared'

type Row = Analytics['data'][number]

export type Day = {
  date: string
  conversations: number
  calls: number
  callMinutes: number
  costUsd: number
  /** Averaged over the day's agents, weighted by conversations; null without a reply. */
  firstReplySeconds: number | null
}

const DAY_MS = 24 * 60 * 60 * 1000

/** Every UTC day from `from` to `to`, both included (YYYY-MM-DD). */
export const daysBetween = (from: string, to: string) => {
  const days: string[] = []
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += DAY_MS)
    days.push(new Date(at).toISOString().slice(0, 10))
  return days
}

export const isoDay = (offsetDays = 0) =>
  new Date(Date.now() + offsetDays * DAY_MS).toISOString().slice(0, 10)

/** The API's rows (one per agent and day) summed per day, with the days nothing happened as zeros. */
export const sumByDay = (rows: Row[], from: string, to: string): Day[] =>
  daysBetween(from, to).map((date) => {
    const ofDay = rows.filter((row) => row.date === date)
    const replied = ofDay.filter((row) => row.averageFirstReplySeconds !== null && row.conversations > 0)
    const weight = replied.reduce((sum, row) => sum + row.conversations, 0)
    return {
      date,
      conversations: ofDay.reduce((sum, row) => sum + row.conversations, 0),
      calls: ofDay.reduce((sum, row) => sum + row.calls, 0),
      callMinutes: ofDay.reduce((sum, row) => sum + row.callMinutes, 0),
      costUsd: ofDay.reduce((sum, row) => sum + row.replyCostUsd + row.callCostUsd, 0),
      firstReplySeconds:
        weight > 0
          ? replied.reduce((sum, row) => sum + (row.averageFirstReplySeconds ?? 0) * row.conversations, 0) /
            weight
          : null,
    }
  })

/** Outcomes over the whole range: `call.<end reason>` and `conversation.<status>` counts, largest first. */
export const sumOutcomes = (rows: Row[]) => {
  const totals = new Map<string, number>()
  for (const row of rows)
    for (const [outcome, count] of Object.entries(row.outcomes))
      totals.set(outcome, (totals.get(outcome) ?? 0) + count)
  return [...totals].sort((a, b) => b[1] - a[1])
}
