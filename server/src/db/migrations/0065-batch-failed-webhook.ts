import { type Kysely, sql } from 'kysely'

const before = '["chat.ended","call.ended","conversation.analyzed","call.analyzed","batch.completed"]'
const after =
  '["chat.ended","call.ended","conversation.analyzed","call.analyzed","batch.completed","batch.failed"]'

/**
 * `batch.failed` joins the webhook events. An agent that receives every event (the default, or
 * all five chosen) receives it too; one that chose fewer keeps its choice.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`alter table agents alter column webhook_events set default ${sql.lit(after)}::jsonb`.execute(db)
  await sql`update agents set webhook_events = webhook_events || '["batch.failed"]'::jsonb
    where webhook_events @> ${sql.lit(before)}::jsonb
      and not webhook_events @> '["batch.failed"]'::jsonb`.execute(db)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`update agents set webhook_events = webhook_events - 'batch.failed'`.execute(db)
  await sql`alter table agents alter column webhook_events set default ${sql.lit(before)}::jsonb`.execute(db)
}
