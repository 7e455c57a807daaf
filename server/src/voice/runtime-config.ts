import type { AgentRow } from '../agents/store.ts'
import type { AppContext } from '../context.ts'
import { listEnabledFunctions, openHeaders } from '../functions/service.ts'

/**
 * What the agent worker needs to run a call, sent as the dispatch metadata. Custom functions go
 * without their headers: dispatch metadata is stored and shown by LiveKit (dashboards, room
 * admins, logs), while headers are customer secrets sealed at rest. The worker fetches them with
 * WORKER_TOKEN from GET /v1/calls/{callId}/functions when it first invokes one.
 */
export const agentRuntimeConfig = async (ctx: AppContext, agent: AgentRow) => {
  const functions = agent.functionCallingEnabled ? await listEnabledFunctions(ctx, agent) : []
  return {
    id: agent.id,
    name: agent.name,
    architecture: agent.agentArchitecture,
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
  }
}

export type DispatchMetadata = {
  callId: string
  organizationId: string
  roomName: string
  direction: 'web' | 'outbound'
  userId: string | null
  agent: Awaited<ReturnType<typeof agentRuntimeConfig>>
  /** Outbound calls: the contact's fields (name, custom CSV columns) for the prompt. */
  contact?: Record<string, unknown>
}

/** The custom functions of an agent with their headers opened, for the worker only. */
export const listWorkerFunctions = async (ctx: AppContext, agent: AgentRow) => {
  if (!agent.functionCallingEnabled) return []
  return (await listEnabledFunctions(ctx, agent)).map((fn) => ({
    id: fn.id,
    name: fn.name,
    description: fn.description,
    endpoint: fn.endpoint,
    method: fn.method,
    headers: openHeaders(ctx, fn),
    parameters: fn.parameters,
  }))
}
