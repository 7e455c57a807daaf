import type { AgentMode, Role } from '@parley/shared'

/** Who acts on agents: a studio user, or an API key acting for the user who created it. */
export type AgentActor = { organizationId: string; userId: string | null; role: Role }
export type Surface = 'v1' | 'studio'

type AgentOwnership = { mode: AgentMode; userId: string }

const isManager = (role: Role) => role === 'owner' || role === 'admin'

/** public: every member; private: the creator plus admins and owners; commercial: everyone. */
export const canView = (actor: AgentActor, agent: AgentOwnership) =>
  agent.mode !== 'private' || isManager(actor.role) || agent.userId === actor.userId

/**
 * v1: owners/admins update public and commercial agents; the creator updates their own private one.
 * studio: owners/admins update any; a member updates their own unless it is commercial.
 */
export const canUpdate = (actor: AgentActor, agent: AgentOwnership, surface: Surface) => {
  const isCreator = agent.userId === actor.userId
  if (surface === 'v1') return agent.mode === 'private' ? isCreator : isManager(actor.role)
  return isManager(actor.role) || (isCreator && agent.mode !== 'commercial')
}

/** Only owners and admins make an agent commercial. */
export const canSetMode = (actor: AgentActor, mode: AgentMode) =>
  mode !== 'commercial' || isManager(actor.role)
