import { type Kysely, sql } from 'kysely'

/**
 * Nobody pays for silence: a call bills only while the person and the agent are both in its
 * room. The call learns who is there (LiveKit's participant webhooks, the dial's answer, the
 * worker's setup request) and keeps its billed time as closed intervals (`accrued_micros`, priced
 * at the architecture of the agent live then) plus the open one (`billing_since`). A handoff
 * records the agent live now. A batch attempt whose agent never came ends `agent_unavailable`.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('calls')
    .addColumn('person_joined_at', 'timestamptz')
    .addColumn('agent_taken_at', 'timestamptz')
    .addColumn('agent_participant_sid', 'text')
    .addColumn('billing_since', 'timestamptz')
    .addColumn('accrued_micros', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('live_agent_id', 'text')
    .execute()
  // The agent-join deadline's sweep reads only the calls still waiting for their agent.
  await sql`create index calls_awaiting_agent_idx on calls (created_at)
    where status = 'active' and agent_taken_at is null`.execute(db)
  await sql`alter table batch_attempts drop constraint batch_attempts_outcome_check`.execute(db)
  await sql`alter table batch_attempts add constraint batch_attempts_outcome_check
    check (outcome in ('answered', 'busy', 'no_answer', 'failed', 'completed', 'agent_unavailable'))`.execute(
    db,
  )
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`alter table batch_attempts drop constraint batch_attempts_outcome_check`.execute(db)
  await sql`alter table batch_attempts add constraint batch_attempts_outcome_check
    check (outcome in ('answered', 'busy', 'no_answer', 'failed', 'completed'))`.execute(db)
  await sql`drop index calls_awaiting_agent_idx`.execute(db)
  await db.schema
    .alterTable('calls')
    .dropColumn('person_joined_at')
    .dropColumn('agent_taken_at')
    .dropColumn('agent_participant_sid')
    .dropColumn('billing_since')
    .dropColumn('accrued_micros')
    .dropColumn('live_agent_id')
    .execute()
}
