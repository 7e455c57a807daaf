import { type Kysely, sql } from 'kysely'

const before =
  '["chat.ended","call.ended","conversation.analyzed","call.analyzed","batch.completed","batch.failed"]'
const after =
  '["chat.ended","call.ended","conversation.analyzed","call.analyzed","batch.completed","batch.failed","call.transferred"]'

/**
 * Transfers to a person: an agent's transferDestinations (name, E.164 number or SIP URI, when to
 * use it, cold or warm), and each transfer a call made with its result. `call.transferred` joins
 * the webhook events: an agent that receives every event receives it too; one that chose fewer
 * keeps its choice.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('agents')
    .addColumn('transfer_destinations', 'jsonb', (col) => col.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute()
  await sql`alter table agents alter column webhook_events set default ${sql.lit(after)}::jsonb`.execute(db)
  await sql`update agents set webhook_events = webhook_events || '["call.transferred"]'::jsonb
    where webhook_events @> ${sql.lit(before)}::jsonb
      and not webhook_events @> '["call.transferred"]'::jsonb`.execute(db)
  await db.schema
    .createTable('call_transfers')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('call_id', 'text', (col) => col.notNull().references('calls.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (col) => col.notNull())
    .addColumn('agent_id', 'text', (col) => col.notNull())
    .addColumn('destination_name', 'text', (col) => col.notNull())
    .addColumn('destination', 'text', (col) => col.notNull())
    .addColumn('mode', 'text', (col) => col.notNull().check(sql`mode in ('cold', 'warm')`))
    .addColumn('method', 'text', (col) => col.notNull().check(sql`method in ('refer', 'dial')`))
    .addColumn('status', 'text', (col) =>
      col.notNull().check(sql`status in ('dialing', 'transferred', 'no_answer', 'declined', 'failed')`),
    )
    .addColumn('sip_status', 'integer')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('call_transfers_call')
    .on('call_transfers')
    .columns(['call_id', 'created_at'])
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('call_transfers').execute()
  await sql`update agents set webhook_events = webhook_events - 'call.transferred'`.execute(db)
  await sql`alter table agents alter column webhook_events set default ${sql.lit(before)}::jsonb`.execute(db)
  await db.schema.alterTable('agents').dropColumn('transfer_destinations').execute()
}
