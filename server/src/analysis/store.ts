import type { Executor } from '../db/index.ts'

export type Sentiment = 'positive' | 'neutral' | 'negative'
export type Analysis = {
  summary: string
  sentiment: Sentiment
  outcome: string
  /** The values of the agent's analysis schema; null without a schema or when the model missed it. */
  data: Record<string, unknown> | null
}

/** What was analysed: a chat conversation (its typed and spoken messages) or one call. */
export type Subject = { kind: 'conversation' | 'call'; id: string }

const tableOf = (subject: Subject) => (subject.kind === 'call' ? 'calls' : 'conversations')

/** Stores the analysis once: a job run again (a retry, a second end) leaves the first one. */
export const saveAnalysis = async (
  db: Executor,
  { subject, analysis }: { subject: Subject; analysis: Analysis },
) => {
  const saved = await db
    .updateTable(tableOf(subject))
    .set({
      analysis_summary: analysis.summary,
      analysis_sentiment: analysis.sentiment,
      analysis_outcome: analysis.outcome,
      analysis_data: analysis.data === null ? null : JSON.stringify(analysis.data),
      analyzed_at: new Date(),
    })
    .where('id', '=', subject.id)
    .where('analyzed_at', 'is', null)
    .returning('id')
    .executeTakeFirst()
  return saved !== undefined
}

export const isAnalyzed = async (db: Executor, subject: Subject) => {
  const row = await db
    .selectFrom(tableOf(subject))
    .select('analyzed_at')
    .where('id', '=', subject.id)
    .executeTakeFirst()
  return row?.analyzed_at != null
}

/** The stored analysis of a row, as the API shows it; null before it was analysed. */
export const presentAnalysis = (row: {
  analysis_summary: string | null
  analysis_sentiment: Sentiment | null
  analysis_outcome: string | null
  analysis_data: Record<string, unknown> | null
  analyzed_at: Date | null
}) =>
  row.analyzed_at && row.analysis_summary && row.analysis_sentiment && row.analysis_outcome
    ? {
        summary: row.analysis_summary,
        sentiment: row.analysis_sentiment,
        outcome: row.analysis_outcome,
        data: row.analysis_data ?? null,
        analyzedAt: row.analyzed_at.toISOString(),
      }
    : null
