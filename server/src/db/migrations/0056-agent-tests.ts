import { type Kysely, sql } from 'kysely'

/**
 * Agent tests: an agent's test cases, the runs of them against one of its versions (with their
 * results: transcripts and verdicts), and whether publishing waits for the tests to pass.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('agent_tests')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) => col.notNull())
    .addColumn('agent_id', 'text', (col) => col.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('definition', 'jsonb', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('agent_tests_agent_idx').on('agent_tests').columns(['agent_id', 'id']).execute()
  await db.schema
    .createTable('agent_test_runs')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) => col.notNull())
    .addColumn('agent_id', 'text', (col) => col.notNull().references('agents.id').onDelete('cascade'))
    // A version number, or null for the draft.
    .addColumn('version', 'integer')
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('trigger', 'text', (col) => col.notNull())
    .addColumn('test_ids', 'jsonb', (col) => col.notNull())
    .addColumn('total', 'integer', (col) => col.notNull())
    .addColumn('done', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('passed', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('results', 'jsonb', (col) => col.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('error', 'text')
    .addColumn('started_by', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('agent_test_runs_agent_idx')
    .on('agent_test_runs')
    .columns(['agent_id', 'created_at'])
    .execute()
  await db.schema
    .createTable('agent_test_settings')
    .addColumn('agent_id', 'text', (col) => col.primaryKey().references('agents.id').onDelete('cascade'))
    .addColumn('run_before_publish', 'boolean', (col) => col.notNull().defaultTo(false))
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('agent_test_settings').execute()
  await db.schema.dropTable('agent_test_runs').execute()
  await db.schema.dropTable('agent_tests').execute()
}
