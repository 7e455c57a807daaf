import type {
  TestCaseResult,
  TranscriptTurn,
  VersionFunction,
  VoiceTestCase,
  VoiceTestResultRequest,
} from '@parley/shared'
import { type AgentRow, findAgent, findAgentsByIds, versionSnapshot } from '../agents/index.ts'
import { placeHold, releaseHold, settleHold } from '../billing/index.ts'
import { agentRuntimeConfig, callSetupFor } from '../calls/index.ts'
import { countPromptTokens, priceReply, replyCharge, roundWorstCaseMicros } from '../chat/index.ts'
import type { AppContext } from '../context.ts'
import { newUlid } from '../crypto/ids.ts'
import { listVersionedFunctions } from '../functions/index.ts'
import { AppError } from '../http/app-error.ts'
import { knowledgeInstruction, retrieveForReply } from '../knowledge/index.ts'
import { nextVisitorTurn } from './roles.ts'
import { resultOf } from './run.ts'
import * as store from './store.ts'
import * as voiceStore from './voice-store.ts'

/**
 * A voice agent's test run, run by the voice worker: the worker claims one case at a time (a
 * lease, so two workers never run the same case), runs the agent's own session in the
 * framework's text mode, and reports the transcript here, where the expectations are checked,
 * the judge asked and the case billed as a chat run's are. The agent's model calls are the
 * worker's: each case's worst case is held when it is claimed and settled with the usage it
 * reports. A lease that runs out (the worker died) is swept and the case claimed again, at most
 * MAX_CASE_ATTEMPTS times; a run no worker takes within UNCLAIMED_RUN_MS ends as `error`.
 */

/** A claimed case is the worker's this long (its own time-out for a case is 5 minutes). */
export const VOICE_CASE_LEASE_SECONDS = 6 * 60
/** Claims of one case before it is given up as an error. */
export const MAX_CASE_ATTEMPTS = 3
/** A voice run no worker has taken this long after it was queued ends as `error`. */
export const UNCLAIMED_RUN_MS = 60 * 60 * 1000
/** A persona visitor's turn or the judge may take this long. */
const SERVER_ROLE_TIMEOUT_MS = 2 * 60 * 1000
/** Worst-case prompt tokens a voice test round is held for, beyond the agent's own prompt. */
const HELD_CONVERSATION_TOKENS = 4000

export const VOICE_CREDITS_MESSAGE = 'Insufficient credits: add credits to run the tests'
export const UNCLAIMED_RUN_REASON =
  'No voice worker took the run within an hour: is the voice agent worker (npm run agent) running?'
export const ABANDONED_CASE_REASON = `The voice worker running the test went away ${MAX_CASE_ATTEMPTS} times before it finished`

/** Whether a run of this agent (as its version has it) goes to the voice worker. */
export const isVoiceAgent = (agent: Pick<AgentRow, 'agentArchitecture'>) => agent.agentArchitecture !== 'text'

const errorResult = (test: { id: string; name: string }, error: string): TestCaseResult => ({
  testId: test.id,
  name: test.name,
  status: 'error',
  error,
  transcript: [],
  verdicts: [],
  costMicros: 0,
})

/** The model a voice agent's usage is priced at (a realtime agent's: the catalogue's default). */
const modelOf = (ctx: AppContext, agent: AgentRow) => agent.model ?? ctx.catalogue.defaults.model

/**
 * The run's agent as its version has it, and its custom functions' definitions as that version
 * published them (null for a draft run: the definitions there are now), as a chat run's.
 */
const runSnapshot = async (ctx: AppContext, run: store.RunRow) => {
  const current = await findAgent(ctx.db, { organizationId: run.organizationId, id: run.agentId })
  if (!current) throw AppError.notFound('agent')
  return versionSnapshot(ctx, { agent: current, version: run.version })
}

/** The run's agent as its version has it. */
const runAgent = async (ctx: AppContext, run: store.RunRow) => (await runSnapshot(ctx, run)).agent

/** Records a case's result and ends the run once every case has one (one transaction). */
const recordResult = async (
  ctx: AppContext,
  { runId, result }: { runId: string; result: TestCaseResult },
) => {
  await ctx.db.transaction().execute(async (tx) => {
    await store.addResult(tx, { id: runId, result })
    await voiceStore.finishIfDone(tx, runId)
  })
}

/** The worst case of a voice test's model calls: two rounds a visitor turn, the agent's prompt and the talk. */
const worstCaseMicros = (ctx: AppContext, { agent, test }: { agent: AgentRow; test: store.TestRow }) => {
  const model = modelOf(ctx, agent)
  const turns = test.visitor.kind === 'script' ? test.visitor.turns.length : test.visitor.maxTurns
  const promptTokens =
    countPromptTokens(ctx, {
      model,
      messages: [{ role: 'system', content: agent.sysMsg ?? '' }],
      tools: [],
    }) + HELD_CONVERSATION_TOKENS
  return roundWorstCaseMicros(ctx, { model, promptTokens }) * turns * 2
}

/** The names of the version's enabled functions deleted since it was published (none for a draft run). */
const deletedSince = async (ctx: AppContext, agent: AgentRow, functions: VersionFunction[] | null) =>
  functions && agent.functionCallingEnabled
    ? (await listVersionedFunctions(ctx, agent, functions))
        .filter((fn) => fn.headersBox === null)
        .map((fn) => fn.name)
    : []

/** What the worker needs to run a claimed case, its hold placed (402 when the credits are short). */
const prepareCase = async (
  ctx: AppContext,
  { run, testId, claimId }: { run: store.RunRow; testId: string; claimId: string },
): Promise<VoiceTestCase> => {
  const test = await store.findTest(ctx.db, { agentId: run.agentId, id: testId })
  if (!test) throw AppError.notFound('test')
  const { agent, functions } = await runSnapshot(ctx, run)
  if (!isVoiceAgent(agent)) throw AppError.conflict('The agent is a text agent in this version')
  const holdId = await placeHold(ctx, {
    organizationId: run.organizationId,
    amountMicros: worstCaseMicros(ctx, { agent, test }),
    kind: 'reply',
    reference: run.id,
    ttlMs: (VOICE_CASE_LEASE_SECONDS + 60) * 1000,
    minBalanceMicros: ctx.config.chatMinBalanceMicros,
  })
  if (!holdId) throw AppError.paymentRequired(VOICE_CREDITS_MESSAGE)
  await voiceStore.setClaimHold(ctx.db, { claimId, holdId })
  // The version's own function definitions (their tools and stubs' names), as a chat run's.
  const [runtime, setup, deletedFunctions] = await Promise.all([
    agentRuntimeConfig(ctx, agent, run.organizationId, functions),
    callSetupFor(ctx, agent, run.organizationId, functions),
    deletedSince(ctx, agent, functions),
  ])
  return {
    runId: run.id,
    testId: test.id,
    claimId,
    leaseSeconds: VOICE_CASE_LEASE_SECONDS,
    organizationId: run.organizationId,
    name: test.name,
    visitor: test.visitor,
    stubs: test.stubs,
    allowRealCalls: test.allowRealCalls,
    deletedFunctions,
    agent: runtime,
    setup,
  }
}

/**
 * POST /v1/worker/agent-test-runs/claim: the next case of a voice run no worker holds, taken for
 * a lease; null when there is none. A case that cannot be run (its test deleted, the credits
 * short) gets its error result here and the next one is tried.
 */
export const claimVoiceCase = async (ctx: AppContext): Promise<VoiceTestCase | null> => {
  for (const candidate of await voiceStore.claimableCases(ctx.db, { limit: 10 })) {
    const run = await store.findRun(ctx.db, { id: candidate.runId })
    if (!run) continue
    const claim = await voiceStore.takeCase(ctx.db, {
      ...candidate,
      claimId: newUlid(),
      leaseUntil: new Date(Date.now() + VOICE_CASE_LEASE_SECONDS * 1000),
      liveAgentId: run.agentId,
    })
    if (!claim) continue
    await voiceStore.markRunning(ctx.db, run.id)
    try {
      return await prepareCase(ctx, { run, testId: candidate.testId, claimId: claim.claimId })
    } catch (error) {
      if (!(error instanceof AppError))
        ctx.logger.warn({ err: error, runId: run.id }, 'a voice test case could not start')
      const message = error instanceof AppError ? error.message : 'The test could not start'
      const test = (await store.findTest(ctx.db, { agentId: run.agentId, id: candidate.testId })) ?? {
        id: candidate.testId,
        name: '(deleted test)',
      }
      const refreshed = await voiceStore.findClaim(ctx.db, { ...candidate, claimId: claim.claimId })
      if (refreshed?.holdId) await releaseHold(ctx, refreshed.holdId)
      if (await voiceStore.releaseClaim(ctx.db, claim.claimId))
        await recordResult(ctx, { runId: run.id, result: errorResult(test, message) })
    }
  }
  return null
}

/** The run (a voice one) and the live claim of the case named; 404 / 409 claim_lost otherwise. */
const claimedCase = async (
  ctx: AppContext,
  { runId, testId, claimId }: { runId: string; testId: string; claimId: string },
) => {
  const run = await store.findRun(ctx.db, { id: runId })
  if (run?.runner !== 'voice_worker') throw AppError.notFound('test run')
  const claim = await voiceStore.findClaim(ctx.db, { runId, testId, claimId })
  if (!claim)
    throw AppError.conflict(
      'The claim on this test case ended (its lease ran out, or it was reported); another worker may run it',
      'claim_lost',
    )
  const test = await store.findTest(ctx.db, { agentId: run.agentId, id: testId })
  if (!test) throw AppError.notFound('test')
  return { run, claim, test }
}

/** POST …/cases/{testId}/visitor: a persona visitor's next turn, played and paid for here. */
export const voiceVisitorTurn = async (
  ctx: AppContext,
  ids: { runId: string; testId: string },
  { claimId, transcript }: { claimId: string; transcript: TranscriptTurn[] },
) => {
  const { run, test } = await claimedCase(ctx, { ...ids, claimId })
  const { visitor } = test
  if (visitor.kind !== 'persona')
    throw AppError.badRequest('The test’s visitor is scripted: it has no persona to play')
  const next = await nextVisitorTurn(ctx, {
    organizationId: run.organizationId,
    reference: run.id,
    signal: AbortSignal.timeout(SERVER_ROLE_TIMEOUT_MS),
    persona: visitor.persona,
    goal: visitor.goal,
    model: visitor.model ?? ctx.catalogue.defaults.model,
    transcript,
  })
  await voiceStore.addClaimCost(ctx.db, { claimId, costMicros: next.costMicros })
  return { success: true as const, data: { message: next.message } }
}

/**
 * POST …/cases/{testId}/handoff: the case's live agent hands over to one of its handoffAgentIds
 * (a voice agent of the run's organization); answers its configuration and setup as a call's
 * handoff does. The run's own agent hands over as its version has it; a handed-to one runs live.
 */
export const voiceHandoff = async (
  ctx: AppContext,
  ids: { runId: string; testId: string },
  { claimId, agentId }: { claimId: string; agentId: string },
) => {
  const { run, claim } = await claimedCase(ctx, { ...ids, claimId })
  const current =
    claim.liveAgentId === run.agentId
      ? await runAgent(ctx, run)
      : await findAgent(ctx.db, { organizationId: run.organizationId, id: claim.liveAgentId })
  if (!current) throw AppError.notFound('agent')
  const [target] = await findAgentsByIds(ctx.db, { organizationId: run.organizationId, ids: [agentId] })
  if (!target) throw AppError.notFound('agent')
  if (!current.handoffAgentIds.includes(target.id) || !isVoiceAgent(target))
    throw AppError.badRequest(
      `agentId: ${target.id} is not a voice agent among the handoffAgentIds of ${current.name}`,
      'invalid_handoff_target',
    )
  const [agent, setup] = await Promise.all([
    agentRuntimeConfig(ctx, target, run.organizationId),
    callSetupFor(ctx, target, run.organizationId),
  ])
  await voiceStore.setLiveAgent(ctx.db, { claimId, agentId: target.id })
  return { success: true as const, data: { agent, setup } }
}

/**
 * POST …/cases/{testId}/knowledge/search: the passages for a question from the case's live
 * agent's knowledge sources in the run's organization (the run's agent as its version has them; a
 * handed-to agent's as they are now), as a call's search answers them.
 */
export const voiceKnowledgeSearch = async (
  ctx: AppContext,
  ids: { runId: string; testId: string },
  { claimId, query }: { claimId: string; query: string },
) => {
  const { run, claim } = await claimedCase(ctx, { ...ids, claimId })
  const agent =
    claim.liveAgentId === run.agentId
      ? await runAgent(ctx, run)
      : await findAgent(ctx.db, { organizationId: run.organizationId, id: claim.liveAgentId })
  if (!agent) throw AppError.notFound('agent')
  const retrieval = await retrieveForReply(ctx, {
    organizationId: run.organizationId,
    sourceIds: agent.knowledgeSourceIds,
    message: query,
  })
  return {
    passages: retrieval?.passages ?? [],
    sources: retrieval?.sources ?? [],
    instruction: retrieval ? knowledgeInstruction(retrieval) : null,
  }
}

/**
 * POST …/cases/{testId}/result: the case's conversation as the worker ran it. Its model usage is
 * charged to the case's hold (priced at the run agent's model), the expectations checked and the
 * criteria judged as a chat run's, the result stored and the run ended once every case has one.
 */
export const reportVoiceCase = async (
  ctx: AppContext,
  ids: { runId: string; testId: string },
  { claimId, transcript, usage, error }: VoiceTestResultRequest,
) => {
  const { run, claim, test } = await claimedCase(ctx, { ...ids, claimId })
  const agent = await runAgent(ctx, run)
  const agentCost = priceReply(ctx.config, { model: modelOf(ctx, agent), usage })
  if (claim.holdId)
    await ctx.db.transaction().execute((tx) =>
      settleHold(ctx, tx, {
        id: claim.holdId as string,
        charge: replyCharge({
          organizationId: run.organizationId,
          conversationId: run.id,
          costMicros: agentCost,
          reason: 'Agent test voice reply',
        }),
      }),
    )
  const result = await resultOf(ctx, {
    run,
    test,
    signal: AbortSignal.timeout(SERVER_ROLE_TIMEOUT_MS),
    transcript,
    error,
    costMicros: agentCost + claim.costMicros,
  })
  const recorded = await ctx.db.transaction().execute(async (tx) => {
    if (!(await voiceStore.releaseClaim(tx, claimId))) return false
    await store.addResult(tx, { id: run.id, result })
    await voiceStore.finishIfDone(tx, run.id)
    return true
  })
  if (!recorded)
    throw AppError.conflict('The claim on this test case ended before its result arrived', 'claim_lost')
  const after = (await store.findRun(ctx.db, { id: run.id })) ?? run
  return {
    success: true as const,
    data: { runId: run.id, status: after.status, done: after.done, total: after.total },
  }
}

/**
 * The voice runs' sweep (with the server runs', agent-tests.sweep): a claim whose lease ran out
 * frees its hold and its case for another worker, or, claimed MAX_CASE_ATTEMPTS times, ends the
 * case as an error; a run no worker took within UNCLAIMED_RUN_MS ends as `error`.
 */
export const sweepVoiceRuns = async (ctx: AppContext) => {
  for (const claim of await voiceStore.expiredClaims(ctx.db, new Date())) {
    if (!(await voiceStore.lapseClaim(ctx.db, claim.claimId))) continue
    if (claim.holdId) await releaseHold(ctx, claim.holdId)
    ctx.logger.warn({ runId: claim.runId, testId: claim.testId }, 'a voice test case’s lease ran out')
    if (claim.attempts < MAX_CASE_ATTEMPTS) continue
    const run = await store.findRun(ctx.db, { id: claim.runId })
    if (!run) continue
    const test = (await store.findTest(ctx.db, { agentId: run.agentId, id: claim.testId })) ?? {
      id: claim.testId,
      name: '(deleted test)',
    }
    await recordResult(ctx, { runId: run.id, result: errorResult(test, ABANDONED_CASE_REASON) })
  }
  const ended = await voiceStore.endUnclaimedRuns(ctx.db, {
    before: new Date(Date.now() - UNCLAIMED_RUN_MS),
    reason: UNCLAIMED_RUN_REASON,
  })
  if (ended.length > 0) ctx.logger.warn({ runIds: ended }, `${ended.length} voice test run(s) no worker took`)
}
