import type {
  AgentTest,
  AgentTestSettings,
  CreateAgentTest,
  TestRun,
  TestRunSummary,
  UpdateAgentTest,
} from '@parley/shared'
import { api } from '../api.ts'

/** The agent tests area's calls: test cases, the publish gate's setting, runs and their results. */

const base = (agentId: string) => `/v1/agents/${encodeURIComponent(agentId)}`

export const listTests = async (agentId: string) =>
  (await api<{ data: AgentTest[] }>(`${base(agentId)}/tests?limit=100`)).data

export const createTest = async (agentId: string, input: CreateAgentTest) =>
  (await api<{ data: AgentTest }>(`${base(agentId)}/tests`, { method: 'POST', json: input })).data

export const updateTest = async (agentId: string, testId: string, input: UpdateAgentTest) =>
  (
    await api<{ data: AgentTest }>(`${base(agentId)}/tests/${encodeURIComponent(testId)}`, {
      method: 'PATCH',
      json: input,
    })
  ).data

export const deleteTest = async (agentId: string, testId: string) =>
  api(`${base(agentId)}/tests/${encodeURIComponent(testId)}`, { method: 'DELETE' })

export const getTestSettings = async (agentId: string) =>
  (await api<{ data: AgentTestSettings }>(`${base(agentId)}/test-settings`)).data

export const saveTestSettings = async (agentId: string, settings: AgentTestSettings) =>
  (
    await api<{ data: AgentTestSettings }>(`${base(agentId)}/test-settings`, {
      method: 'PUT',
      json: settings,
    })
  ).data

export const startRun = async (agentId: string, version: 'draft' | undefined) =>
  (
    await api<{ data: TestRun }>(`${base(agentId)}/test-runs`, {
      method: 'POST',
      json: version ? { version } : {},
    })
  ).data

export const listRuns = async (agentId: string) =>
  (await api<{ data: TestRunSummary[] }>(`${base(agentId)}/test-runs?limit=1`)).data

export const getRun = async (agentId: string, runId: string) =>
  (await api<{ data: TestRun }>(`${base(agentId)}/test-runs/${encodeURIComponent(runId)}`)).data
