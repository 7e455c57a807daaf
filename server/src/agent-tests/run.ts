import type {
  ExpectationVerdict,
  TestCaseResult,
  TestExpectation,
  TranscriptTurn,
  VersionFunction,
} from '@parley/shared'
import { type AgentRow, findAgent, versionSnapshot } from '../agents/index.ts'
import { type AnswerFunction, runSimulatedReply, type SimulatedReply } from '../chat/index.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { aliveAfter } from '../instances/liveness.ts'
import { checkExpectation } from './expectations.ts'
import { judgeCriterion, nextVisitorTurn } from './roles.ts'
import * as store from './store.ts'

/** One test case may take this long, its model rounds and stubs included. */
const TEST_CASE_TIMEOUT_MS = 5 * 60 * 1000

export const RUN_JOB = 'agent-tests.run'

type Answered = NonNullable<TranscriptTurn['answeredBy']>

/**
 * Custom functions as the test defines them: a stub's recorded response; without a stub the real
 * endpoint only when the test allows it, otherwise an error the agent reads. Records who answered.
 */
const answererFor = (test: store.TestRow, answeredBy: Answered[]): AnswerFunction => {
  return async ({ name, runReal }) => {
    if (Object.hasOwn(test.stubs, name)) {
      answeredBy.push('stub')
      return JSON.stringify(test.stubs[name])
    }
    if (test.allowRealCalls) {
      answeredBy.push('real')
      return runReal()
    }
    answeredBy.push('refused')
    return JSON.stringify({ error: `${name} has no stub in this test and real calls are not allowed` })
  }
}

const toolTurns = (reply: SimulatedReply, answeredBy: Answered[]): TranscriptTurn[] =>
  reply.toolCalls.map((call) => ({
    role: 'tool',
    kind:
      call.kind === 'function' || call.kind === 'end_call' || call.kind === 'handoff' ? call.kind : 'unknown',
    name: call.name,
    arguments: call.arguments,
    content: call.kind === 'handoff' ? (call.targetAgentId ?? '') : call.status,
    answeredBy: call.kind === 'function' ? (answeredBy.shift() ?? 'none') : 'none',
  }))

/**
 * A voice agent runs here through the chat path's text equivalent (its prompt, model, tools and
 * handoffs, typed): a realtime agent without a text model gets the catalogue's default model.
 */
const asTextAgent = (ctx: AppContext, agent: AgentRow): AgentRow =>
  agent.model ? agent : { ...agent, model: ctx.catalogue.defaults.model }

/** The visitor and the agent take turns until the script or maxTurns ends, or the agent ends the chat. */
const converse = async (
  ctx: AppContext,
  {
    run,
    agent,
    versionFunctions,
    test,
    signal,
  }: {
    run: store.RunRow
    agent: AgentRow
    versionFunctions: VersionFunction[] | null
    test: store.TestRow
    signal: AbortSignal
  },
) => {
  const transcript: TranscriptTurn[] = []
  const turns: { role: 'user' | 'assistant'; content: string }[] = []
  const answeredBy: Answered[] = []
  const answerFunction = answererFor(test, answeredBy)
  const billing = { organizationId: run.organizationId, reference: run.id, signal }
  const { visitor } = test
  let current = asTextAgent(ctx, agent)
  let costMicros = 0
  const maxTurns = visitor.kind === 'script' ? visitor.turns.length : visitor.maxTurns
  for (let index = 0; index < maxTurns; index++) {
    let said: string | null
    if (visitor.kind === 'script') said = visitor.turns[index] ?? null
    else if (index === 0 && visitor.opening) said = visitor.opening
    else {
      const next = await nextVisitorTurn(ctx, {
        ...billing,
        persona: visitor.persona,
        goal: visitor.goal,
        model: visitor.model ?? ctx.catalogue.defaults.model,
        transcript,
      })
      costMicros += next.costMicros
      said = next.message
    }
    if (said === null) break
    transcript.push({ role: 'visitor', content: said })
    turns.push({ role: 'user', content: said })
    // The version's own function definitions while its agent answers; a handed-to agent runs live.
    const reply = await runSimulatedReply(ctx, {
      ...billing,
      agent: current,
      turns,
      answerFunction,
      versionFunctions: current.id === agent.id ? versionFunctions : null,
    })
    costMicros += reply.costMicros
    transcript.push(...toolTurns(reply, answeredBy))
    if (reply.text) {
      transcript.push({ role: 'agent', content: reply.text })
      turns.push({ role: 'assistant', content: reply.text })
    }
    if (reply.error) return { transcript, costMicros, error: reply.error }
    if (reply.endSession) break
    if (reply.agentId !== current.id) {
      const handedTo = await findAgent(ctx.db, { organizationId: agent.organizationId, id: reply.agentId })
      if (handedTo) current = asTextAgent(ctx, handedTo)
    }
  }
  return { transcript, costMicros, error: null }
}

/** One test case: the conversation, then each expectation's verdict (the judge's last). */
export const runTestCase = async (
  ctx: AppContext,
  {
    run,
    agent,
    versionFunctions,
    test,
  }: { run: store.RunRow; agent: AgentRow; versionFunctions: VersionFunction[] | null; test: store.TestRow },
): Promise<TestCaseResult> => {
  const signal = AbortSignal.timeout(TEST_CASE_TIMEOUT_MS)
  const base = { testId: test.id, name: test.name }
  let conversation: Awaited<ReturnType<typeof converse>>
  try {
    conversation = await converse(ctx, { run, agent, versionFunctions, test, signal })
  } catch (error) {
    if (!(error instanceof AppError))
      ctx.logger.warn({ err: error, runId: run.id }, 'an agent test failed to run')
    const message = error instanceof AppError ? error.message : 'The test could not run to its end'
    return { ...base, status: 'error', error: message, transcript: [], verdicts: [], costMicros: 0 }
  }
  return resultOf(ctx, { run, test, signal, ...conversation })
}

/**
 * A case's result from its finished conversation (the chat path's, or the voice worker's): each
 * expectation checked, the criteria judged (billed like chat) unless the conversation was cut
 * short, the verdicts in the order the test lists its expectations.
 */
export const resultOf = async (
  ctx: AppContext,
  {
    run,
    test,
    signal,
    transcript,
    error,
    costMicros: conversationCost,
  }: {
    run: Pick<store.RunRow, 'id' | 'organizationId'>
    test: store.TestRow
    signal: AbortSignal
    transcript: TranscriptTurn[]
    error: string | null
    costMicros: number
  },
): Promise<TestCaseResult> => {
  const base = { testId: test.id, name: test.name }
  let costMicros = conversationCost
  const verdicts: ExpectationVerdict[] = []
  const judged: Extract<TestExpectation, { type: 'judge' }>[] = []
  for (const expectation of test.expectations) {
    if (expectation.type === 'judge') judged.push(expectation)
    else verdicts.push(checkExpectation(expectation, transcript))
  }
  // A conversation cut short is not worth a judge's fee: its criteria are left unjudged.
  for (const expectation of judged) {
    if (error) {
      verdicts.push({ expectation, passed: false, reason: 'not judged: the conversation did not finish' })
      continue
    }
    try {
      const judge = await judgeCriterion(ctx, {
        organizationId: run.organizationId,
        reference: run.id,
        signal,
        expectation,
        model: test.judgeModel ?? ctx.catalogue.defaults.model,
        transcript,
      })
      costMicros += judge.costMicros
      verdicts.push(judge.verdict)
    } catch (judgeError) {
      const message = judgeError instanceof AppError ? judgeError.message : 'the judge could not be asked'
      verdicts.push({ expectation, passed: false, reason: `not judged: ${message}` })
    }
  }
  // Verdicts in the order the test lists its expectations.
  verdicts.sort((a, b) => test.expectations.indexOf(a.expectation) - test.expectations.indexOf(b.expectation))
  const status = error ? 'error' : verdicts.every((verdict) => verdict.passed) ? 'passed' : 'failed'
  return { ...base, status, error, transcript, verdicts, costMicros }
}

/**
 * Runs a queued run's test cases one after another, against the agent as the run's version has
 * it, recording each result as it finishes (the run's progress). Taken once: a second worker
 * picking the same job finds it running and leaves it.
 */
export const executeRun = async (ctx: AppContext, runId: string) => {
  const run = await store.findRun(ctx.db, { id: runId })
  if (!run || !(await store.startRun(ctx.db, { id: runId, instanceId: ctx.instanceId }))) return
  try {
    const published = await findAgent(ctx.db, { organizationId: run.organizationId, id: run.agentId })
    if (!published) throw AppError.notFound('agent')
    const { agent, functions } = await versionSnapshot(ctx, { agent: published, version: run.version })
    const tests = await store.findTests(ctx.db, { agentId: run.agentId, ids: run.testIds })
    let failed = 0
    for (const test of tests) {
      const result = await runTestCase(ctx, { run, agent, versionFunctions: functions, test })
      if (result.status !== 'passed') failed++
      await store.addResult(ctx.db, { id: run.id, result })
    }
    // A test deleted since the run was queued is not run; the total says what was asked.
    await store.finishRun(ctx.db, { id: run.id, status: failed > 0 ? 'failed' : 'passed' })
  } catch (error) {
    ctx.logger.warn({ err: error, runId }, 'an agent test run failed')
    const message = error instanceof AppError ? error.message : 'The run could not finish'
    await store.finishRun(ctx.db, { id: run.id, status: 'error', error: message })
  }
}

export const SWEEP_JOB = 'agent-tests.sweep'

/** What a run left running by an instance that died says. */
export const ORPHANED_RUN_REASON =
  'The run stopped: the server running it went away (a restart or a crash) before it finished'

/**
 * Ends the runs whose instance stopped beating: they are `error` with the reason, never `running`
 * forever (the job queue does not run them again: startRun takes only a queued run).
 */
export const sweepOrphanedRuns = async (ctx: AppContext) => {
  const ended = await store.endOrphanedRuns(ctx.db, {
    aliveAfter: aliveAfter(ctx),
    reason: ORPHANED_RUN_REASON,
  })
  if (ended.length > 0)
    ctx.logger.warn({ runIds: ended }, `${ended.length} agent test run(s) of a dead instance ended as error`)
}
