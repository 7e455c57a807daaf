import type { Kysely } from 'kysely'

/**
 * Voice loose ends (issue 32): a realtime agent's text model for post-call analysis, a voice
 * agent's fallback STT and TTS, on a call why it has no analysis (`skipped` with the reason)
 * instead of a stand-in text, and on a transcript line whether the caller cut the agent off.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('agents')
    .addColumn('analysis_model', 'text')
    .addColumn('fallback_stt', 'text')
    .addColumn('fallback_tts', 'text')
    .execute()
  await db.schema
    .alterTable('calls')
    .addColumn('analysis_status', 'text')
    .addColumn('analysis_error', 'text')
    .execute()
  await db.schema
    .alterTable('call_transcript_lines')
    .addColumn('interrupted', 'boolean', (column) => column.notNull().defaultTo(false))
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('call_transcript_lines').dropColumn('interrupted').execute()
  await db.schema.alterTable('calls').dropColumn('analysis_status').dropColumn('analysis_error').execute()
  await db.schema
    .alterTable('agents')
    .dropColumn('analysis_model')
    .dropColumn('fallback_stt')
    .dropColumn('fallback_tts')
    .execute()
}
