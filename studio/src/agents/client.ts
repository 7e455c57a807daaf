import type {
  AgentCreated,
  AgentList,
  AgentListItem,
  AgentV1,
  Catalogue,
  CreateAgentV1,
  StudioAgentUpdated,
  StudioUpdateAgent,
} from '@parley/shared'
import { api } from '../api.ts'

/** The agents area's calls: v1 for reading, creating, going live and deleting; the studio form to edit. */

let catalogueCache: Promise<Catalogue> | null = null
/** The catalogue, asked for once per page load (a failed answer is asked again next time). */
export const loadCatalogue = () => {
  catalogueCache ??= api<{ data: Catalogue }>('/v1/catalogue').then(
    (body) => body.data,
    (error: unknown) => {
      catalogueCache = null
      throw error
    },
  )
  return catalogueCache
}

/** What is servable changes with the organization's provider keys: the next page asks again. */
export const forgetCatalogue = () => {
  catalogueCache = null
}

export const listAgents = async () => (await api<{ data: AgentListItem[] }>('/v1/agents?limit=100')).data

/** A page of the agents list (20 a page), with whether another follows. */
export const listAgentsPage = (page: number) => api<AgentList>(`/v1/agents?limit=20&page=${page}`)

export const getAgent = async (agentId: string) =>
  (await api<{ data: AgentV1 }>(`/v1/agents/${encodeURIComponent(agentId)}`)).data

/**
 * Input as the form holds it: the create schema's defaults are the server's to fill, and the
 * language is a code or a name, as the schema accepts it.
 */
export type NewAgent = Omit<Partial<CreateAgentV1>, 'language'> &
  Pick<CreateAgentV1, 'name' | 'agentArchitecture'> & { language?: string }

export const createAgent = async (agent: NewAgent) =>
  (await api<AgentCreated>('/v1/agents', { method: 'POST', json: agent })).data

/**
 * The studio form (`PUT /api/agents/{id}`): only the fields that changed. Its answer names the
 * provider keys the organization lacks when the server fell back to the platform's defaults.
 */
export const updateAgent = (agentId: string, changes: StudioUpdateAgent) =>
  api<StudioAgentUpdated>(`/api/agents/${encodeURIComponent(agentId)}`, { method: 'PUT', json: changes })

export const setAgentActive = async (agentId: string, active: boolean) =>
  (
    await api<{ data: AgentV1 }>(`/v1/agents/${encodeURIComponent(agentId)}`, {
      method: 'PATCH',
      json: { active },
    })
  ).data

export const deleteAgent = (agentId: string) =>
  api(`/v1/agents/${encodeURIComponent(agentId)}`, { method: 'DELETE' })
