import { z } from 'zod'
import { ZAgentRuntimeConfig, ZCallSetup } from './agent-worker.ts'
import { ZIsoDateTime, ZPagination } from './common.ts'
import { ZCallKnowledgeSearch } from './knowledge.ts'

/**
 * Agent tests: per-agent test cases (a simulated visitor and what the agent must or must not do),
 * and runs of them against a version of the agent, on the real chat path, as a job.
 */

const ZModelName = z.string().trim().min(1).max(100).meta({ example: 'gpt-4o-mini' })

const ZTurnText = z.string().trim().min(1, 'must not be empty').max(2000, 'must be at most 2000 characters')

/** Scripted turns: the visitor says each in order, whatever the agent answers. */
export const ZScriptedVisitor = z
  .strictObject({
    kind: z.literal('script'),
    turns: z.array(ZTurnText).min(1, 'needs at least one turn').max(20, 'at most 20 turns'),
  })
  .meta({ id: 'ScriptedVisitor' })

/** A persona with a goal, played by a model, for at most maxTurns turns (it may stop earlier). */
export const ZPersonaVisitor = z
  .strictObject({
    kind: z.literal('persona'),
    persona: z.string().trim().min(1).max(2000).meta({ example: 'An impatient customer' }),
    goal: z.string().trim().min(1).max(2000).meta({ example: 'Find out where order 1234 is' }),
    /** The first thing the visitor says; without it the model opens too. */
    opening: ZTurnText.optional(),
    maxTurns: z.number().int().min(1).max(10).default(4),
    /** The model playing the visitor; default the catalogue's default model. */
    model: ZModelName.nullable().optional(),
  })
  .meta({ id: 'PersonaVisitor' })

export const ZTestVisitor = z.discriminatedUnion('kind', [ZScriptedVisitor, ZPersonaVisitor])
export type TestVisitor = z.infer<typeof ZTestVisitor>

const sayFields = {
  /** Plain text, matched case-insensitively anywhere in the agent's replies. */
  text: z.string().min(1).max(500).optional(),
  /** A regular expression (JavaScript syntax, case-insensitive); refused when it could run away. */
  pattern: z.string().min(1).max(200).optional(),
}
const oneOfTextOrPattern = (value: { text?: string | undefined; pattern?: string | undefined }) =>
  (value.text === undefined) !== (value.pattern === undefined)
const TEXT_OR_PATTERN = { message: 'give exactly one of text and pattern' }

export const ZTestExpectation = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('must_say'), ...sayFields }).refine(oneOfTextOrPattern, TEXT_OR_PATTERN),
    z
      .strictObject({ type: z.literal('must_not_say'), ...sayFields })
      .refine(oneOfTextOrPattern, TEXT_OR_PATTERN),
    z.strictObject({
      type: z.literal('must_call'),
      function: z.string().min(1).max(64).meta({ example: 'lookup_order' }),
      /** Every field given must be in the call's arguments with an equal value (a partial match). */
      arguments: z.record(z.string(), z.unknown()).optional(),
    }),
    z.strictObject({ type: z.literal('must_not_call'), function: z.string().min(1).max(64) }),
    z.strictObject({
      type: z.literal('must_hand_off'),
      /** The agent handed to; any when absent. */
      agentId: z.string().min(1).max(100).optional(),
    }),
    z.strictObject({ type: z.literal('must_end') }),
    z.strictObject({
      type: z.literal('judge'),
      /** What a model reading the transcript decides passes or fails, with its reason. */
      criterion: z.string().trim().min(1).max(2000).meta({ example: 'The agent stays polite' }),
    }),
  ])
  .meta({ id: 'TestExpectation' })
export type TestExpectation = z.infer<typeof ZTestExpectation>

const testFields = {
  name: z.string().trim().min(1).max(200).meta({ example: 'Finds an order' }),
  visitor: ZTestVisitor,
  expectations: z.array(ZTestExpectation).min(1, 'needs at least one expectation').max(20),
  /** Custom function name → the response it answers with in this test (its endpoint is not called). */
  stubs: z.record(z.string().min(1).max(64), z.unknown()).default({}),
  /** Functions without a stub call their real endpoint (otherwise they answer an error). */
  allowRealCalls: z.boolean().default(false),
  /** The model judging `judge` expectations; default the catalogue's default model. */
  judgeModel: ZModelName.nullable().default(null),
}

export const ZCreateAgentTest = z.object(testFields).meta({ id: 'CreateAgentTest' })
export type CreateAgentTest = z.infer<typeof ZCreateAgentTest>

export const ZUpdateAgentTest = z
  .object({
    name: testFields.name.optional(),
    visitor: ZTestVisitor.optional(),
    expectations: testFields.expectations.optional(),
    stubs: z.record(z.string().min(1).max(64), z.unknown()).optional(),
    allowRealCalls: z.boolean().optional(),
    judgeModel: ZModelName.nullable().optional(),
  })
  .meta({ id: 'UpdateAgentTest' })
export type UpdateAgentTest = z.infer<typeof ZUpdateAgentTest>

export const ZAgentTest = z
  .object({
    id: z.string(),
    agentId: z.string(),
    name: z.string(),
    visitor: ZTestVisitor,
    expectations: z.array(ZTestExpectation),
    stubs: z.record(z.string(), z.unknown()),
    allowRealCalls: z.boolean(),
    judgeModel: z.string().nullable(),
    createdAt: ZIsoDateTime,
    updatedAt: ZIsoDateTime,
  })
  .meta({ id: 'AgentTest' })
export type AgentTest = z.infer<typeof ZAgentTest>

export const ZAgentTestParams = z.object({
  agentId: z.string().min(1).max(100),
  testId: z.string().min(1).max(100),
})
export const ZAgentTestRunParams = z.object({
  agentId: z.string().min(1).max(100),
  runId: z.string().min(1).max(100),
})

export const ZStartTestRun = z
  .object({
    /** A published version's number, or 'draft' (the studio's unpublished edits); default the published one. */
    version: z.union([z.number().int().min(1).max(1_000_000), z.literal('draft')]).optional(),
    /** The tests to run; all of the agent's when absent. */
    testIds: z.array(z.string().min(1).max(100)).min(1).max(100).optional(),
  })
  .meta({ id: 'StartTestRun' })
export type StartTestRun = z.infer<typeof ZStartTestRun>

export const ZTranscriptTurn = z
  .object({
    role: z.enum(['visitor', 'agent', 'tool']),
    content: z.string(),
    /** A tool turn: what the agent did (a function, ending the chat, a handoff). */
    kind: z.enum(['function', 'end_call', 'handoff', 'unknown']).optional(),
    /** A tool turn: the function, end_call or transfer the agent called, with its arguments. */
    name: z.string().optional(),
    arguments: z.unknown().optional(),
    /** A tool turn: stub, real, or refused (no stub and real calls not allowed). */
    answeredBy: z.enum(['stub', 'real', 'refused', 'none']).optional(),
  })
  .meta({ id: 'TestTranscriptTurn' })
export type TranscriptTurn = z.infer<typeof ZTranscriptTurn>

export const ZExpectationVerdict = z
  .object({
    expectation: ZTestExpectation,
    passed: z.boolean(),
    /** Why: what matched or not, or the judge's reason. */
    reason: z.string(),
  })
  .meta({ id: 'ExpectationVerdict' })
export type ExpectationVerdict = z.infer<typeof ZExpectationVerdict>

export const ZTestCaseResult = z
  .object({
    testId: z.string(),
    name: z.string(),
    status: z.enum(['passed', 'failed', 'error']),
    /** Set when the test could not run to its end (credits, the model's provider). */
    error: z.string().nullable(),
    transcript: z.array(ZTranscriptTurn),
    verdicts: z.array(ZExpectationVerdict),
    costMicros: z.number().int(),
  })
  .meta({ id: 'TestCaseResult' })
export type TestCaseResult = z.infer<typeof ZTestCaseResult>

export const testRunStatuses = ['queued', 'running', 'passed', 'failed', 'error'] as const

/**
 * Who runs a run's cases: `server` (a text agent: the chat path, in a server job) or
 * `voice_worker` (a voice agent: the voice worker runs its own session in text mode).
 */
export const testRunners = ['server', 'voice_worker'] as const

export const ZTestRunSummary = z
  .object({
    id: z.string(),
    agentId: z.string(),
    /** The version run: a number, or 'draft'. */
    version: z.union([z.number().int(), z.literal('draft')]),
    status: z.enum(testRunStatuses),
    /** Why the run as a whole could not finish. */
    error: z.string().nullable(),
    total: z.number().int(),
    done: z.number().int(),
    passed: z.number().int(),
    failed: z.number().int(),
    /** Which started it: the API, or the publish gate. */
    trigger: z.enum(['api', 'publish']),
    /** Who runs it: the server (chat path) or the voice worker (a voice agent's own session). */
    runner: z.enum(testRunners),
    createdAt: ZIsoDateTime,
    finishedAt: ZIsoDateTime.nullable(),
  })
  .meta({ id: 'TestRunSummary' })
export type TestRunSummary = z.infer<typeof ZTestRunSummary>

export const ZTestRun = ZTestRunSummary.extend({ results: z.array(ZTestCaseResult) }).meta({ id: 'TestRun' })
export type TestRun = z.infer<typeof ZTestRun>

export const ZAgentTestSettings = z
  .object({
    /** POST /v1/agents/{id}/publish runs the tests on the draft first and refuses when one fails. */
    runBeforePublish: z.boolean(),
  })
  .meta({ id: 'AgentTestSettings' })
export type AgentTestSettings = z.infer<typeof ZAgentTestSettings>

export const ZAgentTestsQuery = z.object({
  page: z.coerce.number().int('page must be a whole number').min(1, 'page must be at least 1').default(1),
  limit: z.coerce
    .number()
    .int('limit must be a whole number')
    .min(1, 'limit must be between 1 and 100')
    .max(100, 'limit must be between 1 and 100')
    .default(20),
})

export const ZAgentTestResponse = z
  .object({ success: z.literal(true), data: ZAgentTest })
  .meta({ id: 'AgentTestResponse' })
export const ZAgentTestList = z
  .object({ success: z.literal(true), data: z.array(ZAgentTest), pagination: ZPagination })
  .meta({ id: 'AgentTestList' })
export const ZTestRunResponse = z
  .object({ success: z.literal(true), data: ZTestRun })
  .meta({ id: 'TestRunResponse' })
export const ZTestRunList = z
  .object({ success: z.literal(true), data: z.array(ZTestRunSummary), pagination: ZPagination })
  .meta({ id: 'TestRunList' })
export const ZAgentTestSettingsResponse = z
  .object({ success: z.literal(true), data: ZAgentTestSettings })
  .meta({ id: 'AgentTestSettingsResponse' })
export const ZDeletedAgentTest = z
  .object({ success: z.literal(true), data: z.object({ id: z.string(), deleted: z.literal(true) }) })
  .meta({ id: 'DeletedAgentTest' })

/*
 * The voice worker's side of a voice agent's test run (WORKER_TOKEN): it claims one case at a
 * time with a lease, asks the server for a persona visitor's next turn and for a handoff's target,
 * and posts the case's transcript, where the server checks the expectations, asks the judge and
 * bills. Requests are strict: an unknown field is a 400.
 */

/** POST /v1/worker/agent-test-runs/claim (no body). */
export const ZVoiceTestClaimRequest = z.strictObject({})

/** A claimed case: the test, the agent as the run's version has it, and its call setup (secret). */
export const ZVoiceTestCase = z.object({
  runId: z.string(),
  testId: z.string(),
  /** Names this claim in the case's later requests; a claim swept after its lease is refused. */
  claimId: z.string(),
  /** The claim is the worker's for this long; the case must be reported by then. */
  leaseSeconds: z.number().int(),
  organizationId: z.string(),
  name: z.string(),
  visitor: ZTestVisitor,
  stubs: z.record(z.string(), z.unknown()),
  allowRealCalls: z.boolean(),
  /**
   * The run version's custom functions deleted since it was published, by name: a stub still
   * answers one, but it is never called for real (as in a chat run). Absent from older servers.
   */
  deletedFunctions: z.array(z.string()).default([]),
  agent: ZAgentRuntimeConfig,
  setup: ZCallSetup,
})
export type VoiceTestCase = z.infer<typeof ZVoiceTestCase>

export const ZVoiceTestClaimResponse = z
  .object({ success: z.literal(true), data: ZVoiceTestCase.nullable() })
  .meta({ id: 'WorkerVoiceTestClaim' })

export const ZVoiceTestCaseParams = z.object({
  runId: z.string().min(1).max(100),
  testId: z.string().min(1).max(100),
})

const ZClaimId = z.string().min(1).max(100)

/** A transcript turn as the worker reports it (strict: the server stores it as sent). */
export const ZReportedTurn = z.strictObject({
  role: z.enum(['visitor', 'agent', 'tool']),
  content: z.string().max(10_000),
  kind: z.enum(['function', 'end_call', 'handoff', 'unknown']).optional(),
  name: z.string().max(200).optional(),
  arguments: z.unknown().optional(),
  answeredBy: z.enum(['stub', 'real', 'refused', 'none']).optional(),
})

/** POST …/cases/{testId}/visitor: a persona visitor's next turn (null: it is done). */
export const ZVoiceTestVisitorRequest = z.strictObject({
  claimId: ZClaimId,
  transcript: z.array(ZReportedTurn).max(500),
})
export const ZVoiceTestVisitorResponse = z
  .object({ success: z.literal(true), data: z.object({ message: z.string().nullable() }) })
  .meta({ id: 'WorkerVoiceTestVisitorTurn' })

/** POST …/cases/{testId}/handoff: the live agent hands the case to one of its handoff agents. */
export const ZVoiceTestHandoffRequest = z.strictObject({
  claimId: ZClaimId,
  agentId: z.string().min(1).max(100),
})

/**
 * POST …/cases/{testId}/knowledge/search: passages for the case's question from its live agent's
 * knowledge sources (the agent's `search_knowledge` tool, and each turn's), as a call's search.
 */
export const ZVoiceTestKnowledgeSearch = ZCallKnowledgeSearch.extend({ claimId: ZClaimId })
  .strict()
  .meta({ id: 'WorkerVoiceTestKnowledgeSearchRequest' })

/** POST …/cases/{testId}/result: the case ran (or could not: `error`); its model usage to bill. */
export const ZVoiceTestResultRequest = z.strictObject({
  claimId: ZClaimId,
  transcript: z.array(ZReportedTurn).max(500),
  usage: z.strictObject({
    inputTokens: z.number().int().min(0).max(100_000_000),
    outputTokens: z.number().int().min(0).max(100_000_000),
  }),
  error: z.string().trim().min(1).max(2000).nullable(),
})
export type VoiceTestResultRequest = z.infer<typeof ZVoiceTestResultRequest>
export const ZVoiceTestResultResponse = z
  .object({
    success: z.literal(true),
    data: z.object({
      runId: z.string(),
      status: z.enum(testRunStatuses),
      done: z.number().int(),
      total: z.number().int(),
    }),
  })
  .meta({ id: 'WorkerVoiceTestResult' })
