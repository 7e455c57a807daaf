import type { Executor } from '../db/index.ts'

export type Sentiment = 'positive' | 'neutral' | 'negative'
export type Analysis = { summary: string; sentiment: Sentiment; outcome: string }

/** Stores the analysis once: a job run again (a retry, a second end) leaves the first one. */
export const saveAnalysis = async (db: Executor, { id, analysis }: { id: string; analysis: Analysis }) => {
  const saved = await db
    .updateTable('conversations')
    .set({
      analysis_summary: analysis.summary,
      analysis_sentiment: analysis.sentiment,
      analysis_outcome: analysis.outcome,
      analyzed_at: new Date(),
    })
    .where('id', '=', id)
    .where('analyzed_at', 'is', null)
    .returning('id')
    .executeTakeFirst()
  return saved !== undefined
}

export const isAnalyzed = async (db: Executor, id: string) => {
  const row = await db
    .selectFrom('conversations')
    .select('analyzed_at')
    .where('id', '=', id)
    .executeTakeFirst()
  return row?.analyzed_at != null
}
