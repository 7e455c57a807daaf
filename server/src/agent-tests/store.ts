import type { TestCaseResult, TestExpectation, TestVisitor } from '@parley/shared'
import { sql } from 'kysely'
import type { Executor } from '../db/index.ts'

/** A test case's definition as stored (everything but its name, identity and times). */
export type TestDefinition = {
  visitor: TestVisitor
  expectations: TestExpectation[]
  stubs: Record<string, unknown>
  allowRealCalls: boolean
  judgeModel: string | null
}

export type TestRow = TestDefinition & {
  id: string
  organizationId: string
  agentId: string
  name: string
  createdAt: Date
  updatedAt: Date
}

export type RunRow = {
  id: string
  organizationId: string
  agentId: string
  version: number | 'draft'
  status: 'queued' | 'running' | 'passed' | 'failed' | 'error'
  trigger: 'api' | 'publish'
  runner: 'server' | 'voice_worker'
  testIds: string[]
  total: number
  done: number
  passed: number
  failed: number
  results: TestCaseResult[]
  error: string | null
  createdAt: Date
  finishedAt: Date | null
}

type TestRecord = {
  id: string
  organization_id: string
  agent_id: string
  name: string
  definition: Record<string, unknown>
  created_at: Date
  updated_at: Date
}

const toTest = (row: TestRecord): TestRow => ({
  ...(row.definition as TestDefinition),
  id: row.id,
  organizationId: row.organization_id,
  agentId: row.agent_id,
  name: row.name,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

export const insertTest = async (
  db: Executor,
  test: { id: string; organizationId: string; agentId: string; name: string; definition: TestDefinition },
) =>
  toTest(
    await db
      .insertInto('agent_tests')
      .values({
        id: test.id,
        organization_id: test.organizationId,
        agent_id: test.agentId,
        name: test.name,
        definition: JSON.stringify(test.definition),
      })
      .returningAll()
      .executeTakeFirstOrThrow(),
  )

export const findTest = async (db: Executor, { agentId, id }: { agentId: string; id: string }) => {
  const row = await db
    .selectFrom('agent_tests')
    .selectAll()
    .where('agent_id', '=', agentId)
    .where('id', '=', id)
    .executeTakeFirst()
  return row ? toTest(row) : null
}

export const listTests = async (
  db: Executor,
  { agentId, offset, limit }: { agentId: string; offset: number; limit: number },
) => {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('agent_tests')
      .selectAll()
      .where('agent_id', '=', agentId)
      .orderBy('id')
      .offset(offset)
      .limit(limit)
      .execute(),
    db
      .selectFrom('agent_tests')
      .select(sql<number>`count(*)::int`.as('total'))
      .where('agent_id', '=', agentId)
      .executeTakeFirstOrThrow(),
  ])
  return { rows: rows.map(toTest), total: count.total }
}

/** The agent's tests by id (all of them without ids), oldest first. */
export const findTests = async (db: Executor, { agentId, ids }: { agentId: string; ids?: string[] }) => {
  let query = db.selectFrom('agent_tests').selectAll().where('agent_id', '=', agentId)
  if (ids) query = query.where('id', 'in', ids.length > 0 ? ids : [''])
  return (await query.orderBy('id').execute()).map(toTest)
}

export const updateTest = async (
  db: Executor,
  { id, name, definition }: { id: string; name: string; definition: TestDefinition },
) =>
  toTest(
    await db
      .updateTable('agent_tests')
      .set({ name, definition: JSON.stringify(definition), updated_at: sql`now()` })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow(),
  )

export const deleteTest = async (db: Executor, id: string) => {
  await db.deleteFrom('agent_tests').where('id', '=', id).execute()
}

type RunRecord = {
  id: string
  organization_id: string
  agent_id: string
  version: number | null
  status: string
  trigger: string
  runner: string
  test_ids: string[]
  total: number
  done: number
  passed: number
  failed: number
  results: unknown[]
  error: string | null
  created_at: Date
  finished_at: Date | null
}

const toRun = (row: RunRecord): RunRow => ({
  id: row.id,
  organizationId: row.organization_id,
  agentId: row.agent_id,
  version: row.version ?? 'draft',
  status: row.status as RunRow['status'],
  trigger: row.trigger as RunRow['trigger'],
  runner: row.runner === 'voice_worker' ? 'voice_worker' : 'server',
  testIds: row.test_ids,
  total: row.total,
  done: row.done,
  passed: row.passed,
  failed: row.failed,
  results: row.results as TestCaseResult[],
  error: row.error,
  createdAt: row.created_at,
  finishedAt: row.finished_at,
})

export const insertRun = async (
  db: Executor,
  run: {
    id: string
    organizationId: string
    agentId: string
    version: number | 'draft'
    trigger: RunRow['trigger']
    runner: RunRow['runner']
    testIds: string[]
    startedBy: string | null
  },
) =>
  toRun(
    await db
      .insertInto('agent_test_runs')
      .values({
        id: run.id,
        organization_id: run.organizationId,
        agent_id: run.agentId,
        version: run.version === 'draft' ? null : run.version,
        status: 'queued',
        trigger: run.trigger,
        runner: run.runner,
        test_ids: JSON.stringify(run.testIds),
        total: run.testIds.length,
        started_by: run.startedBy,
      })
      .returningAll()
      .executeTakeFirstOrThrow(),
  )

export const findRun = async (db: Executor, { agentId, id }: { agentId?: string; id: string }) => {
  let query = db.selectFrom('agent_test_runs').selectAll().where('id', '=', id)
  if (agentId) query = query.where('agent_id', '=', agentId)
  const row = await query.executeTakeFirst()
  return row ? toRun(row) : null
}

export const listRuns = async (
  db: Executor,
  { agentId, offset, limit }: { agentId: string; offset: number; limit: number },
) => {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('agent_test_runs')
      .selectAll()
      .where('agent_id', '=', agentId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(offset)
      .limit(limit)
      .execute(),
    db
      .selectFrom('agent_test_runs')
      .select(sql<number>`count(*)::int`.as('total'))
      .where('agent_id', '=', agentId)
      .executeTakeFirstOrThrow(),
  ])
  return { rows: rows.map(toRun), total: count.total }
}

/** Takes a queued run for `instanceId`; false when another took it (or it is no longer queued). */
export const startRun = async (db: Executor, { id, instanceId }: { id: string; instanceId: string }) => {
  const result = await db
    .updateTable('agent_test_runs')
    .set({ status: 'running', instance_id: instanceId })
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .where('runner', '=', 'server')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/**
 * Ends, as `error` with `reason`, the runs running on no instance or on one that has not beaten
 * since `aliveAfter` (its process died with the run in hand). Answers the ids it ended.
 */
export const endOrphanedRuns = async (
  db: Executor,
  { aliveAfter, reason }: { aliveAfter: Date; reason: string },
) =>
  (
    await db
      .updateTable('agent_test_runs')
      .set({ status: 'error', error: reason, finished_at: sql`now()` })
      .where('status', '=', 'running')
      // The voice worker's runs have no instance: their cases' leases are swept instead.
      .where('runner', '=', 'server')
      .where((eb) =>
        eb.or([
          eb('agent_test_runs.instance_id', 'is', null),
          eb.not(
            eb.exists(
              eb
                .selectFrom('server_instances')
                .select('server_instances.id')
                .whereRef('server_instances.id', '=', 'agent_test_runs.instance_id')
                .where('server_instances.last_seen_at', '>=', aliveAfter),
            ),
          ),
        ]),
      )
      .returning('id')
      .execute()
  ).map((row) => row.id)

/** One more test case done: its result appended, the counts moved on (the run's progress). */
export const addResult = async (db: Executor, { id, result }: { id: string; result: TestCaseResult }) => {
  await db
    .updateTable('agent_test_runs')
    .set({
      results: sql`results || ${JSON.stringify([result])}::jsonb`,
      done: sql`done + 1`,
      passed: sql`passed + ${result.status === 'passed' ? 1 : 0}`,
      failed: sql`failed + ${result.status === 'passed' ? 0 : 1}`,
    })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .execute()
}

export const finishRun = async (
  db: Executor,
  { id, status, error = null }: { id: string; status: RunRow['status']; error?: string | null },
) => {
  await db
    .updateTable('agent_test_runs')
    .set({ status, error, finished_at: sql`now()` })
    .where('id', '=', id)
    // A run the sweep ended (its instance was thought dead) keeps that end.
    .where('status', '=', 'running')
    .execute()
}

export const readSettings = async (db: Executor, agentId: string) => {
  const row = await db
    .selectFrom('agent_test_settings')
    .select('run_before_publish')
    .where('agent_id', '=', agentId)
    .executeTakeFirst()
  return { runBeforePublish: row?.run_before_publish ?? false }
}

export const saveSettings = async (
  db: Executor,
  { agentId, runBeforePublish }: { agentId: string; runBeforePublish: boolean },
) => {
  await db
    .insertInto('agent_test_settings')
    .values({ agent_id: agentId, run_before_publish: runBeforePublish })
    .onConflict((oc) => oc.column('agent_id').doUpdateSet({ run_before_publish: runBeforePublish }))
    .execute()
}
