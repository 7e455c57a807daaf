import {
  type AgentRuntimeConfig,
  type DispatchMetadata,
  type HandoffTarget,
  type WorkerFunction,
  ZDispatchMetadata,
} from '@parley/shared'
import type { AgentRow } from '../agents/store.ts'
import * as agentStore from '../agents/store.ts'
import type { AppContext } from '../context.ts'
import { invocableOf, listEnabledFunctions } from '../functions/service.ts'

const isVoiceAgent = (agent: AgentRow) => agent.agentArchitecture !== 'text'

/**
 * The agents a call may be handed to: the agent's handoffAgentIds that are voice agents, in its
 * order (only commercial ones when the agent is another organization's commercial agent).
 */
export const voiceHandoffTargets = async (
  ctx: AppContext,
  agent: AgentRow,
  servingOrganizationId: string,
): Promise<AgentRow[]> => {
  const found = await agentStore.findAgentsByIds(ctx.db, {
    organizationId: agent.organizationId,
    ids: agent.handoffAgentIds,
    onlyCommercial: servingOrganizationId !== agent.organizationId,
  })
  return agent.handoffAgentIds.flatMap((id) =>
    found.filter((target) => target.id === id && isVoiceAgent(target)),
  )
}

const presentTarget = (target: AgentRow): HandoffTarget => ({
  id: target.id,
  name: target.name,
  description: target.description,
})

/**
 * What the agent worker needs to run a call, sent in the dispatch metadata. Custom functions go
 * without their headers: dispatch metadata is stored and shown by LiveKit (dashboards, room
 * admins, logs), while headers are customer secrets sealed at rest. The worker reads them, and
 * the provider keys, from GET /v1/calls/{callId}/setup.
 */
export const agentRuntimeConfig = async (
  ctx: AppContext,
  agent: AgentRow,
  /** The organization the call belongs to (another one's, for a commercial agent). */
  servingOrganizationId: string,
): Promise<AgentRuntimeConfig> => {
  const [functions, handoffTargets] = await Promise.all([
    agent.functionCallingEnabled ? listEnabledFunctions(ctx, agent) : [],
    voiceHandoffTargets(ctx, agent, servingOrganizationId),
  ])
  return {
    id: agent.id,
    name: agent.name,
    architecture: agent.agentArchitecture === 'realtime' ? 'realtime' : 'pipeline',
    prompt: agent.sysMsg,
    model: agent.model,
    stt: agent.stt,
    tts: agent.tts,
    voice: agent.voiceId,
    realtimeProvider: agent.realtimeProvider,
    greetingType: agent.greetingType,
    greeting: agent.greetingMessage,
    lastMessage: agent.lastMessage,
    temperature: agent.temperature,
    inactivityTimeout: agent.inactivityTimeout,
    languages: agent.languages,
    functionCallingEnabled: agent.functionCallingEnabled,
    builtInFunctions: agent.functionCallingEnabled ? agent.enabledFunctions : [],
    customFunctions: functions.map((fn) => ({
      id: fn.id,
      name: fn.name,
      description: fn.description,
      method: fn.method,
      endpoint: fn.endpoint,
      parameters: fn.parameters,
    })),
    handoffAgents: handoffTargets.map(presentTarget),
  }
}

/**
 * The dispatch metadata as LiveKit carries it: checked against the shared schema the worker reads
 * it with, so a server change that breaks the contract fails here, before any room is dispatched.
 */
export const serializeDispatchMetadata = (metadata: DispatchMetadata) =>
  JSON.stringify(ZDispatchMetadata.parse(metadata))

/** The custom functions of an agent with their headers opened, for the worker only. */
export const listWorkerFunctions = async (ctx: AppContext, agent: AgentRow): Promise<WorkerFunction[]> => {
  if (!agent.functionCallingEnabled) return []
  return (await listEnabledFunctions(ctx, agent)).map((fn) => ({
    id: fn.id,
    name: fn.name,
    description: fn.description,
    ...invocableOf(ctx, fn),
  }))
}
