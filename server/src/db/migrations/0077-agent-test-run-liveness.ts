import { type Kysely, sql } from 'kysely'

/**
 * A running agent test run names the instance running it: once that instance's heartbeat stops
 * (a restart, a crash), a sweep marks the run `error` with the reason, so it never stays `running`.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('agent_test_runs').addColumn('instance_id', 'text').execute()
  await db.schema
    .createIndex('agent_test_runs_running_idx')
    .on('agent_test_runs')
    .column('instance_id')
    .where(sql.ref('status'), '=', 'running')
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropIndex('agent_test_runs_running_idx').execute()
  await db.schema.alterTable('agent_test_runs').dropColumn('instance_id').execute()
}
