import type { Kysely } from 'kysely'

/**
 * A call's price per minute (micro-USD), from its live agent's STT, LLM and TTS or realtime
 * catalogue prices and the organization's own keys. Calls opened before it keep null and are
 * billed at their architecture's flat price.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('calls').addColumn('micros_per_minute', 'integer').execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('calls').dropColumn('micros_per_minute').execute()
}
