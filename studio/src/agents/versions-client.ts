import type {
  AgentDraft,
  AgentV1,
  AgentVersion,
  AgentVersionDiff,
  AgentVersionSummary,
  LanguageCode,
} from '@parley/shared'
import { api } from '../api.ts'

/** The versions area's calls: the draft, publishing, the history, diffs and restores. */

const base = (agentId: string) => `/v1/agents/${encodeURIComponent(agentId)}`

export const getDraft = async (agentId: string) =>
  (await api<{ data: AgentDraft }>(`${base(agentId)}/draft`)).data

export const publishDraft = async (agentId: string, note: string) =>
  (await api<{ data: AgentVersion }>(`${base(agentId)}/publish`, { method: 'POST', json: { note } })).data

export const listVersions = async (agentId: string) =>
  (await api<{ data: AgentVersionSummary[] }>(`${base(agentId)}/versions?limit=100`)).data

export const diffVersion = async (agentId: string, number: number) =>
  (await api<{ data: AgentVersionDiff }>(`${base(agentId)}/versions/${number}/diff`)).data

export const restoreVersion = async (agentId: string, number: number) =>
  (await api<{ data: AgentDraft }>(`${base(agentId)}/versions/${number}/restore`, { method: 'POST' })).data

/**
 * The agent as its draft has it, in the v1 read form the settings form takes: the draft's
 * settings use the studio's names (sysMsg, languages). Its time is the draft's, so the form
 * takes a newly saved draft as its new starting point.
 */
export const agentWithDraft = (agent: AgentV1, draft: AgentDraft): AgentV1 => {
  const { sysMsg, languages, ...settings } = draft.settings as Record<string, unknown>
  const known = Object.fromEntries(Object.entries(settings).filter(([field]) => field in agent))
  return {
    ...agent,
    ...(known as Partial<AgentV1>),
    systemPrompt: (sysMsg as string | null | undefined) ?? agent.systemPrompt,
    language: ((languages as LanguageCode[] | undefined)?.[0] ?? agent.language) as AgentV1['language'],
    active: agent.active,
    updatedAt: draft.updatedAt ?? agent.updatedAt,
  }
}
