import type {
  AgentV1,
  CreateFunction,
  CustomFunction,
  FunctionTestResult,
  StudioAgentUpdated,
  UpdateFunction,
} from '@parley/shared'
import { api } from '../../api.ts'

/** The custom functions area's calls (`/api/custom-functions`), and the agent's webhook secret. */

const base = (agentId: string) => `/api/custom-functions/${encodeURIComponent(agentId)}`

/** Every function of the agent (at most 20, MAX_FUNCTIONS_PER_AGENT), full, oldest first. */
export const listFunctions = async (agentId: string) =>
  (await api<{ functions: CustomFunction[] }>(`/api/custom-functions?agentId=${encodeURIComponent(agentId)}`))
    .functions

/** Input as the form sends it: the defaults (method, headers, parameters) are the server's to fill. */
export type NewFunction = Pick<CreateFunction, 'name' | 'label' | 'endpoint'> & Partial<CreateFunction>

export const createFunction = (agentId: string, fn: NewFunction) =>
  api<CustomFunction>(base(agentId), { method: 'POST', json: fn })

export const updateFunction = (agentId: string, changes: UpdateFunction) =>
  api<CustomFunction>(base(agentId), { method: 'PUT', json: changes })

export const deleteFunction = (agentId: string, functionId: string) =>
  api(`${base(agentId)}?functionId=${encodeURIComponent(functionId)}`, { method: 'DELETE' })

/** One real call of the stored function with sample arguments; no model, no credits. */
export const testFunction = (agentId: string, functionId: string, args: Record<string, unknown>) =>
  api<FunctionTestResult>(`${base(agentId)}/${encodeURIComponent(functionId)}/test`, {
    method: 'POST',
    json: { arguments: args },
  })

/** Which custom functions the agent may call (and function calling on, so that it calls them). */
export const setEnabledFunctions = (agent: Pick<AgentV1, 'id'>, enabledCustomFunctions: string[]) =>
  api<StudioAgentUpdated>(`/api/agents/${encodeURIComponent(agent.id)}`, {
    method: 'PUT',
    json: {
      enabledCustomFunctions,
      ...(enabledCustomFunctions.length > 0 ? { functionCallingEnabled: true } : {}),
    },
  })
