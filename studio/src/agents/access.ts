import type { AgentV1 } from '@parley/shared'
import { session } from '../api.ts'

/**
 * Who may change an agent, as the API decides it (server/src/agents/permissions.ts), so the studio
 * offers only what will be allowed; the API still decides, and its refusal is shown if they differ.
 */
const isManager = () => {
  const role = session.value?.organization.role
  return role === 'owner' || role === 'admin'
}
const isCreator = (agent: AgentV1) => agent.createdBy === session.value?.user.id

/** The studio form: owners and admins any agent; a member their own unless it is commercial. */
export const mayChangeSettings = (agent: AgentV1) =>
  isManager() || (isCreator(agent) && agent.mode !== 'commercial')

/** Going live, offline, and deletion (v1): a private agent by its creator; others by owners and admins. */
export const mayManage = (agent: AgentV1) => (agent.mode === 'private' ? isCreator(agent) : isManager())
