import { type Kysely, sql } from 'kysely'

/** 0065's default: every event then but `call.transferred` (0048 had added it; 0065 left it out). */
const before =
  '["chat.ended","call.ended","conversation.analyzed","call.analyzed","batch.completed","batch.failed"]'
/** Every event of the catalogue now (webhookEventNames in shared). */
const after =
  '["chat.ended","call.ended","conversation.analyzed","call.analyzed","batch.completed","batch.failed","call.transferred","contact.opted_out"]'

/**
 * `contact.opted_out` joins the webhook events, and the column's default holds every event again
 * (0065 set it without `call.transferred`). An agent that receives every event (0065's six, with
 * or without `call.transferred`) receives both; one that chose fewer keeps its choice.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`alter table agents alter column webhook_events set default ${sql.lit(after)}::jsonb`.execute(db)
  await sql`update agents
    set webhook_events = webhook_events
      || case when webhook_events @> '["call.transferred"]'::jsonb then '[]'::jsonb
         else '["call.transferred"]'::jsonb end
      || '["contact.opted_out"]'::jsonb
    where webhook_events @> ${sql.lit(before)}::jsonb
      and not webhook_events @> '["contact.opted_out"]'::jsonb`.execute(db)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`update agents set webhook_events = webhook_events - 'contact.opted_out'`.execute(db)
  await sql`alter table agents alter column webhook_events set default ${sql.lit(before)}::jsonb`.execute(db)
}
