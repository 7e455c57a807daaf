import type {
  AgentTest,
  CreateAgentTest,
  StartTestRun,
  TestRun,
  TestRunSummary,
  UpdateAgentTest,
} from '@parley/shared'
import { type AgentActor, agentAsVersion, canUpdate, getAgent, publishedVersionOf } from '../agents/index.ts'
import { type AuditBy, recordAudit } from '../audit/index.ts'
import { assertCredits } from '../chat/index.ts'
import type { AppContext } from '../context.ts'
import { newUlid } from '../crypto/ids.ts'
import { AppError } from '../http/app-error.ts'
import { type PageQuery, pageWindow, paginationOf } from '../http/pagination.ts'
import { checkPatterns } from './expectations.ts'
import { executeRun, RUN_JOB } from './run.ts'
import * as store from './store.ts'
import { isVoiceAgent } from './voice.ts'

/** An agent keeps at most this many test cases. */
export const MAX_TESTS_PER_AGENT = 100
/** A test's stubs together, as JSON. */
const MAX_STUBS_BYTES = 64 * 1024

const toTest = (row: store.TestRow): AgentTest => ({
  id: row.id,
  agentId: row.agentId,
  name: row.name,
  visitor: row.visitor,
  expectations: row.expectations,
  stubs: row.stubs,
  allowRealCalls: row.allowRealCalls,
  judgeModel: row.judgeModel,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
})

const toSummary = ({
  results: _results,
  testIds: _ids,
  organizationId: _org,
  ...run
}: store.RunRow): TestRunSummary => ({
  ...run,
  createdAt: run.createdAt.toISOString(),
  finishedAt: run.finishedAt?.toISOString() ?? null,
})

const toRun = (run: store.RunRow): TestRun => ({ ...toSummary(run), results: run.results })

/** The agent, visible to the actor (another organization's: 404). */
const agentOf = (ctx: AppContext, actor: AgentActor, agentId: string) => getAgent(ctx, actor, agentId)

/** Tests are the agent's configuration, and runs cost credits: both need the right to change the agent. */
const changeableAgentOf = async (ctx: AppContext, actor: AgentActor, agentId: string) => {
  const agent = await agentOf(ctx, actor, agentId)
  if (!canUpdate(actor, agent, 'v1'))
    throw AppError.forbidden('You do not have permission to update this agent')
  return agent
}

const checkDefinition = (definition: store.TestDefinition) => {
  checkPatterns(definition.expectations)
  if (JSON.stringify(definition.stubs).length > MAX_STUBS_BYTES)
    throw AppError.badRequest(`stubs: must be at most ${MAX_STUBS_BYTES} bytes of JSON`)
}

const testOf = async (ctx: AppContext, { agentId, testId }: { agentId: string; testId: string }) => {
  const test = await store.findTest(ctx.db, { agentId, id: testId })
  if (!test) throw AppError.notFound('test')
  return test
}

export const createTest = async (
  ctx: AppContext,
  actor: AgentActor,
  agentId: string,
  input: CreateAgentTest,
) => {
  const agent = await changeableAgentOf(ctx, actor, agentId)
  const { name, ...definition } = input
  checkDefinition(definition)
  const { total } = await store.listTests(ctx.db, { agentId, offset: 0, limit: 1 })
  if (total >= MAX_TESTS_PER_AGENT)
    throw AppError.conflict(`An agent has at most ${MAX_TESTS_PER_AGENT} tests; delete one first`)
  const row = await store.insertTest(ctx.db, {
    id: newUlid(),
    organizationId: agent.organizationId,
    agentId,
    name,
    definition,
  })
  return toTest(row)
}

export const listTests = async (ctx: AppContext, actor: AgentActor, agentId: string, page: PageQuery) => {
  await agentOf(ctx, actor, agentId)
  const { rows, total } = await store.listTests(ctx.db, { agentId, ...pageWindow(page) })
  return { data: rows.map(toTest), pagination: paginationOf(page, total) }
}

export const getTest = async (
  ctx: AppContext,
  actor: AgentActor,
  ids: { agentId: string; testId: string },
) => {
  await agentOf(ctx, actor, ids.agentId)
  return toTest(await testOf(ctx, ids))
}

export const updateTest = async (
  ctx: AppContext,
  actor: AgentActor,
  ids: { agentId: string; testId: string },
  input: UpdateAgentTest,
) => {
  await changeableAgentOf(ctx, actor, ids.agentId)
  const {
    id,
    name,
    createdAt: _c,
    updatedAt: _u,
    organizationId: _o,
    agentId: _a,
    ...current
  } = await testOf(ctx, ids)
  const { name: newName, ...changes } = input
  const definition: store.TestDefinition = {
    visitor: changes.visitor ?? current.visitor,
    expectations: changes.expectations ?? current.expectations,
    stubs: changes.stubs ?? current.stubs,
    allowRealCalls: changes.allowRealCalls ?? current.allowRealCalls,
    judgeModel: changes.judgeModel === undefined ? current.judgeModel : changes.judgeModel,
  }
  checkDefinition(definition)
  return toTest(await store.updateTest(ctx.db, { id, name: newName ?? name, definition }))
}

export const deleteTest = async (
  ctx: AppContext,
  actor: AgentActor,
  ids: { agentId: string; testId: string },
) => {
  await changeableAgentOf(ctx, actor, ids.agentId)
  const test = await testOf(ctx, ids)
  await store.deleteTest(ctx.db, test.id)
  return { id: test.id, deleted: true as const }
}

export const getTestSettings = async (ctx: AppContext, actor: AgentActor, agentId: string) => {
  await agentOf(ctx, actor, agentId)
  return store.readSettings(ctx.db, agentId)
}

export const saveTestSettings = async (
  ctx: AppContext,
  actor: AgentActor,
  agentId: string,
  settings: { runBeforePublish: boolean },
  by: AuditBy,
) => {
  const agent = await changeableAgentOf(ctx, actor, agentId)
  await ctx.db.transaction().execute(async (tx) => {
    await store.saveSettings(tx, { agentId, ...settings })
    await recordAudit(tx, by, {
      organizationId: agent.organizationId,
      action: 'agent.test_settings_updated',
      target: { kind: 'agent', id: agentId },
      details: { ...settings },
    })
  })
  return store.readSettings(ctx.db, agentId)
}

/** Records a run of the chosen tests against the chosen version (checked to exist), queued. */
const queueRun = async (
  ctx: AppContext,
  {
    actor,
    agentId,
    input,
    trigger,
  }: { actor: AgentActor; agentId: string; input: StartTestRun; trigger: store.RunRow['trigger'] },
) => {
  const agent = await changeableAgentOf(ctx, actor, agentId)
  const tests = await store.findTests(ctx.db, { agentId, ...(input.testIds ? { ids: input.testIds } : {}) })
  const missing = input.testIds?.find((id) => !tests.some((test) => test.id === id))
  if (missing) throw AppError.badRequest(`testIds: ${missing} is not a test of this agent`)
  if (tests.length === 0) throw AppError.conflict('The agent has no tests to run; create one first')
  // Refused like a chat reply when the credits are short (the publish gate's run fails instead).
  if (trigger === 'api') await assertCredits(ctx, agent.organizationId)
  const version = input.version ?? (await publishedVersionOf(ctx, agentId))
  // A version number that does not exist is a 404 now, not a failed run later.
  const asRun = await agentAsVersion(ctx, { agent, version })
  // A voice agent's run is the voice worker's (its own session, in text mode); the publish gate,
  // which answers within its request, runs every agent on the chat path.
  const runner = trigger === 'api' && isVoiceAgent(asRun) ? 'voice_worker' : 'server'
  return store.insertRun(ctx.db, {
    id: newUlid(),
    organizationId: agent.organizationId,
    agentId,
    version,
    trigger,
    runner,
    testIds: tests.map((test) => test.id),
    startedBy: actor.userId,
  })
}

export const startTestRun = async (
  ctx: AppContext,
  actor: AgentActor,
  agentId: string,
  input: StartTestRun,
) => {
  const run = await queueRun(ctx, { actor, agentId, input, trigger: 'api' })
  // The voice worker claims a voice run's cases itself (voice.ts).
  if (run.runner === 'server') await ctx.jobs.now(RUN_JOB, { runId: run.id })
  return toRun(run)
}

export const getTestRun = async (
  ctx: AppContext,
  actor: AgentActor,
  ids: { agentId: string; runId: string },
) => {
  await agentOf(ctx, actor, ids.agentId)
  const run = await store.findRun(ctx.db, { agentId: ids.agentId, id: ids.runId })
  if (!run) throw AppError.notFound('test run')
  return toRun(run)
}

export const listTestRuns = async (ctx: AppContext, actor: AgentActor, agentId: string, page: PageQuery) => {
  await agentOf(ctx, actor, agentId)
  const { rows, total } = await store.listRuns(ctx.db, { agentId, ...pageWindow(page) })
  return { data: rows.map(toSummary), pagination: paginationOf(page, total) }
}

/**
 * The publish gate (registered with agents/): when the agent asks for it and has tests, they run
 * on the draft now, in the request; one that does not pass refuses the publish (409 tests_failed,
 * with the run's id to read why).
 */
export const checkTestsBeforePublish = async (
  ctx: AppContext,
  { actor, agent }: { actor: AgentActor; agent: { id: string } },
) => {
  const settings = await store.readSettings(ctx.db, agent.id)
  if (!settings.runBeforePublish) return
  const tests = await store.findTests(ctx.db, { agentId: agent.id })
  if (tests.length === 0) return
  const queued = await queueRun(ctx, {
    actor,
    agentId: agent.id,
    input: { version: 'draft' },
    trigger: 'publish',
  })
  await executeRun(ctx, queued.id)
  const run = await store.findRun(ctx.db, { id: queued.id })
  if (run?.status === 'passed') return
  throw new AppError({
    status: 409,
    code: 'tests_failed',
    message: `The draft was not published: ${run?.failed ?? 0} of ${run?.total ?? tests.length} tests did not pass (test run ${queued.id})`,
    extra: { runId: queued.id },
  })
}
