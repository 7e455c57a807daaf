import { type Kysely, sql } from 'kysely'

/**
 * Post-call analysis of chat sessions: the agent setting that asks for it, and the summary,
 * sentiment and outcome the analysis job writes onto the conversation.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('agents')
    .addColumn('post_call_analysis', 'boolean', (col) => col.notNull().defaultTo(false))
    .execute()
  await db.schema
    .alterTable('conversations')
    .addColumn('analysis_summary', 'text')
    .addColumn('analysis_sentiment', 'text', (col) =>
      col.check(sql`analysis_sentiment in ('positive', 'neutral', 'negative')`),
    )
    .addColumn('analysis_outcome', 'text')
    .addColumn('analyzed_at', 'timestamptz')
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('conversations')
    .dropColumn('analysis_summary')
    .dropColumn('analysis_sentiment')
    .dropColumn('analysis_outcome')
    .dropColumn('analyzed_at')
    .execute()
  await db.schema.alterTable('agents').dropColumn('post_call_analysis').execute()
}
