import { type Kysely, sql } from 'kysely'

const outcomes = [
  'completed',
  'voicemail_left',
  'voicemail_hung_up',
  'no_answer',
  'busy',
  'rejected',
  'failed',
  'phone_menu',
  'opted_out',
  'transferred',
  'agent_unavailable',
]
const list = sql.raw(outcomes.map((outcome) => `'${outcome}'`).join(', '))

/**
 * How every call ended from the caller's side (`outcome`, set once by its close, calls/outcome.ts),
 * the SIP status of an unanswered dial, and what answering-machine detection decided. A batch
 * attempt ends with its call's outcome (`answered` while the call is live), so the retry policy
 * reads it there. Calls closed before this migration take the outcome their status implies.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('calls')
    .addColumn('outcome', 'text', (col) => col.check(sql`outcome in (${list})`))
    .addColumn('sip_status', 'integer')
    .addColumn('amd_verdict', 'text', (col) =>
      col.check(sql`amd_verdict in ('human', 'voicemail', 'phone_menu', 'unavailable', 'uncertain')`),
    )
    .execute()
  await sql`update calls set outcome = case
      when end_reason in ('busy', 'no_answer', 'agent_unavailable', 'transferred') then end_reason
      when status = 'failed' then 'failed'
      else 'completed' end
    where status <> 'active'`.execute(db)
  await sql`create index calls_outcome_idx on calls (organization_id, outcome, created_at)
    where outcome is not null`.execute(db)
  await sql`alter table batch_attempts drop constraint batch_attempts_outcome_check`.execute(db)
  await sql`alter table batch_attempts add constraint batch_attempts_outcome_check
    check (outcome in ('answered', ${list}))`.execute(db)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`update batch_attempts set outcome = 'completed'
    where outcome not in ('answered', 'busy', 'no_answer', 'failed', 'completed', 'agent_unavailable')`.execute(
    db,
  )
  await sql`alter table batch_attempts drop constraint batch_attempts_outcome_check`.execute(db)
  await sql`alter table batch_attempts add constraint batch_attempts_outcome_check
    check (outcome in ('answered', 'busy', 'no_answer', 'failed', 'completed', 'agent_unavailable'))`.execute(
    db,
  )
  await sql`drop index calls_outcome_idx`.execute(db)
  await db.schema
    .alterTable('calls')
    .dropColumn('outcome')
    .dropColumn('sip_status')
    .dropColumn('amd_verdict')
    .execute()
}
