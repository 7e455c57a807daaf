import {
  ZAgentIdParams,
  ZAgentTestList,
  ZAgentTestParams,
  ZAgentTestResponse,
  ZAgentTestRunParams,
  ZAgentTestSettings,
  ZAgentTestSettingsResponse,
  ZAgentTestsQuery,
  ZCallHandoffResponse,
  ZCallKnowledgeResult,
  ZCreateAgentTest,
  ZDeletedAgentTest,
  ZStartTestRun,
  ZTestRunList,
  ZTestRunResponse,
  ZUpdateAgentTest,
  ZVoiceTestCaseParams,
  ZVoiceTestClaimRequest,
  ZVoiceTestClaimResponse,
  ZVoiceTestHandoffRequest,
  ZVoiceTestKnowledgeSearch,
  ZVoiceTestResultRequest,
  ZVoiceTestResultResponse,
  ZVoiceTestVisitorRequest,
  ZVoiceTestVisitorResponse,
} from '@parley/shared'
import { agentActorOf } from '../agents/index.ts'
import { auditByOf } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import type { RouteTable } from '../http/route-table.ts'
import * as tests from './service.ts'
import * as voice from './voice.ts'

const tag = 'Agent tests'

export const registerAgentTestRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'post',
    path: '/v1/agents/{agentId}/tests',
    summary: 'Add a test case: a simulated visitor (scripted turns or a persona) and what the agent must do',
    tag,
    auth: 'apiKey',
    params: ZAgentIdParams,
    body: ZCreateAgentTest,
    status: 201,
    response: ZAgentTestResponse,
    errors: [400, 403, 404, 409],
    handle: async ({ params, body, req }) => ({
      success: true as const,
      data: await tests.createTest(ctx, await agentActorOf(ctx, req), params.agentId, body),
    }),
  })

  routes.add({
    method: 'get',
    path: '/v1/agents/{agentId}/tests',
    summary: 'The agent’s test cases, oldest first',
    tag,
    auth: 'apiKey',
    params: ZAgentIdParams,
    query: ZAgentTestsQuery,
    response: ZAgentTestList,
    errors: [404],
    handle: async ({ params, query, req }) => ({
      success: true as const,
      ...(await tests.listTests(ctx, await agentActorOf(ctx, req), params.agentId, query)),
    }),
  })

  routes.add({
    method: 'get',
    path: '/v1/agents/{agentId}/tests/{testId}',
    summary: 'One test case',
    tag,
    auth: 'apiKey',
    params: ZAgentTestParams,
    response: ZAgentTestResponse,
    errors: [404],
    handle: async ({ params, req }) => ({
      success: true as const,
      data: await tests.getTest(ctx, await agentActorOf(ctx, req), params),
    }),
  })

  routes.add({
    method: 'patch',
    path: '/v1/agents/{agentId}/tests/{testId}',
    summary: 'Change a test case: the fields given replace theirs',
    tag,
    auth: 'apiKey',
    params: ZAgentTestParams,
    body: ZUpdateAgentTest,
    response: ZAgentTestResponse,
    errors: [400, 403, 404],
    handle: async ({ params, body, req }) => ({
      success: true as const,
      data: await tests.updateTest(ctx, await agentActorOf(ctx, req), params, body),
    }),
  })

  routes.add({
    method: 'delete',
    path: '/v1/agents/{agentId}/tests/{testId}',
    summary: 'Delete a test case (the runs that ran it keep their results)',
    tag,
    auth: 'apiKey',
    params: ZAgentTestParams,
    response: ZDeletedAgentTest,
    errors: [403, 404],
    handle: async ({ params, req }) => ({
      success: true as const,
      data: await tests.deleteTest(ctx, await agentActorOf(ctx, req), params),
    }),
  })

  routes.add({
    method: 'get',
    path: '/v1/agents/{agentId}/test-settings',
    summary: 'Whether publishing runs the tests on the draft first',
    tag,
    auth: 'apiKey',
    params: ZAgentIdParams,
    response: ZAgentTestSettingsResponse,
    errors: [404],
    handle: async ({ params, req }) => ({
      success: true as const,
      data: await tests.getTestSettings(ctx, await agentActorOf(ctx, req), params.agentId),
    }),
  })

  routes.add({
    method: 'put',
    path: '/v1/agents/{agentId}/test-settings',
    summary: 'Run the tests before publishing: a publish whose draft fails one is refused (409 tests_failed)',
    tag,
    auth: 'apiKey',
    params: ZAgentIdParams,
    body: ZAgentTestSettings,
    response: ZAgentTestSettingsResponse,
    errors: [400, 403, 404],
    handle: async ({ params, body, req }) => ({
      success: true as const,
      data: await tests.saveTestSettings(
        ctx,
        await agentActorOf(ctx, req),
        params.agentId,
        body,
        auditByOf(req),
      ),
    }),
  })

  routes.add({
    method: 'post',
    path: '/v1/agents/{agentId}/test-runs',
    summary:
      'Run the agent’s tests (all, or testIds) against a version (default the published one, or "draft") as a job; billed like chat',
    tag,
    auth: 'apiKey',
    params: ZAgentIdParams,
    body: ZStartTestRun,
    status: 202,
    response: ZTestRunResponse,
    errors: [400, 402, 403, 404, 409],
    handle: async ({ params, body, req }) => ({
      success: true as const,
      data: await tests.startTestRun(ctx, await agentActorOf(ctx, req), params.agentId, body),
    }),
  })

  routes.add({
    method: 'get',
    path: '/v1/agents/{agentId}/test-runs',
    summary: 'The agent’s test runs, newest first, with their progress',
    tag,
    auth: 'apiKey',
    params: ZAgentIdParams,
    query: ZAgentTestsQuery,
    response: ZTestRunList,
    errors: [404],
    handle: async ({ params, query, req }) => ({
      success: true as const,
      ...(await tests.listTestRuns(ctx, await agentActorOf(ctx, req), params.agentId, query)),
    }),
  })

  routes.add({
    method: 'get',
    path: '/v1/agents/{agentId}/test-runs/{runId}',
    summary: 'A test run: progress, and each test’s transcript and verdicts with their reasons',
    tag,
    auth: 'apiKey',
    params: ZAgentTestRunParams,
    response: ZTestRunResponse,
    errors: [404],
    handle: async ({ params, req }) => ({
      success: true as const,
      data: await tests.getTestRun(ctx, await agentActorOf(ctx, req), params),
    }),
  })

  // The voice worker's side of a voice agent's run (WORKER_TOKEN): voice.ts.
  routes.add({
    method: 'post',
    path: '/v1/worker/agent-test-runs/claim',
    summary:
      'Claim the next case of a voice agent’s test run, for a lease (the voice worker, with WORKER_TOKEN)',
    tag,
    auth: 'worker',
    body: ZVoiceTestClaimRequest,
    response: ZVoiceTestClaimResponse,
    errors: [400],
    handle: async () => ({ success: true as const, data: await voice.claimVoiceCase(ctx) }),
  })

  routes.add({
    method: 'post',
    path: '/v1/worker/agent-test-runs/{runId}/cases/{testId}/visitor',
    summary: 'A persona visitor’s next turn in a claimed voice test case (WORKER_TOKEN)',
    tag,
    auth: 'worker',
    params: ZVoiceTestCaseParams,
    body: ZVoiceTestVisitorRequest,
    response: ZVoiceTestVisitorResponse,
    errors: [400, 402, 404, 409],
    handle: ({ params, body }) => voice.voiceVisitorTurn(ctx, params, body),
  })

  routes.add({
    method: 'post',
    path: '/v1/worker/agent-test-runs/{runId}/cases/{testId}/handoff',
    summary: 'Hand a claimed voice test case to another voice agent (WORKER_TOKEN)',
    tag,
    auth: 'worker',
    params: ZVoiceTestCaseParams,
    body: ZVoiceTestHandoffRequest,
    response: ZCallHandoffResponse,
    errors: [400, 404, 409],
    handle: ({ params, body }) => voice.voiceHandoff(ctx, params, body),
  })

  routes.add({
    method: 'post',
    path: '/v1/worker/agent-test-runs/{runId}/cases/{testId}/knowledge/search',
    summary:
      'Passages for a claimed voice test case’s question from its live agent’s knowledge sources (WORKER_TOKEN)',
    tag,
    auth: 'worker',
    params: ZVoiceTestCaseParams,
    body: ZVoiceTestKnowledgeSearch,
    response: ZCallKnowledgeResult,
    errors: [400, 404, 409],
    handle: ({ params, body }) => voice.voiceKnowledgeSearch(ctx, params, body),
  })

  routes.add({
    method: 'post',
    path: '/v1/worker/agent-test-runs/{runId}/cases/{testId}/result',
    summary:
      'Report a claimed voice test case’s conversation: checked, judged and billed here (WORKER_TOKEN)',
    tag,
    auth: 'worker',
    params: ZVoiceTestCaseParams,
    body: ZVoiceTestResultRequest,
    response: ZVoiceTestResultResponse,
    errors: [400, 404, 409],
    handle: ({ params, body }) => voice.reportVoiceCase(ctx, params, body),
  })
}
