import { type Kysely, sql } from 'kysely'

/**
 * A voice agent's test run is run by the voice worker, in its session's text mode: the run says
 * which runner has it (`server`: the chat path in a server job; `voice_worker`), and each case a
 * worker is running holds a claim with a lease. A claim whose lease ran out (the worker died) is
 * swept and the case is claimable again, a few times at most; its hold pays for the case.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('agent_test_runs')
    .addColumn('runner', 'text', (column) => column.notNull().defaultTo('server'))
    .execute()
  await db.schema
    .createTable('agent_test_case_claims')
    .addColumn('run_id', 'text', (column) =>
      column.notNull().references('agent_test_runs.id').onDelete('cascade'),
    )
    .addColumn('test_id', 'text', (column) => column.notNull())
    .addColumn('claim_id', 'text', (column) => column.notNull().unique())
    .addColumn('lease_until', 'timestamptz', (column) => column.notNull())
    /** Claims of this case so far (a case whose worker keeps dying ends as an error). */
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(1))
    /** Null when the lease ran out and the case waits for another worker. */
    .addColumn('active', 'boolean', (column) => column.notNull().defaultTo(true))
    .addColumn('hold_id', 'text')
    /** The voice agent live in the case now (a handoff moves it). */
    .addColumn('live_agent_id', 'text', (column) => column.notNull())
    /** What the server spent on the case so far (the simulated visitor's turns). */
    .addColumn('cost_micros', 'bigint', (column) => column.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('agent_test_case_claims_pk', ['run_id', 'test_id'])
    .execute()
  await db.schema
    .createIndex('agent_test_case_claims_lease_idx')
    .on('agent_test_case_claims')
    .column('lease_until')
    .where(sql.ref('active'), '=', true)
    .execute()
  await db.schema
    .createIndex('agent_test_runs_voice_idx')
    .on('agent_test_runs')
    .column('created_at')
    .where(sql<boolean>`runner = 'voice_worker' and status in ('queued', 'running')`)
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropIndex('agent_test_runs_voice_idx').execute()
  await db.schema.dropTable('agent_test_case_claims').execute()
  await db.schema.alterTable('agent_test_runs').dropColumn('runner').execute()
}
