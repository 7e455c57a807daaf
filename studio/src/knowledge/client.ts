import type { AgentV1, KnowledgePassage, KnowledgeSource } from '@parley/shared'
import { api } from '../api.ts'

/** The knowledge area's calls: the organization's sources, a question tried, an agent's sources. */
export const listSources = async () => (await api<{ data: KnowledgeSource[] }>('/v1/knowledge/sources')).data

export const addSource = async (json: Record<string, unknown>) =>
  (await api<{ data: KnowledgeSource }>('/v1/knowledge/sources', { method: 'POST', json })).data

export const uploadSource = async (form: FormData) => {
  form.set('kind', 'file')
  return (await api<{ data: KnowledgeSource }>('/v1/knowledge/sources', { method: 'POST', form })).data
}

export const refetchSource = (id: string) =>
  api(`/v1/knowledge/sources/${encodeURIComponent(id)}/refetch`, { method: 'POST' })

export const deleteSource = (id: string) =>
  api(`/v1/knowledge/sources/${encodeURIComponent(id)}`, { method: 'DELETE' })

export const searchKnowledge = async (q: string) =>
  (
    await api<{ data: { mode: string; passages: KnowledgePassage[] } }>(
      `/v1/knowledge/search?q=${encodeURIComponent(q)}`,
    )
  ).data

export const setAgentSources = (agent: Pick<AgentV1, 'id'>, knowledgeSourceIds: string[]) =>
  api(`/v1/agents/${encodeURIComponent(agent.id)}`, { method: 'PATCH', json: { knowledgeSourceIds } })
