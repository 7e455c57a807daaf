import { fieldsAsText, fillAll } from '@parley/platform'
import {
  type AgentRuntimeConfig,
  DISPATCH_METADATA_VERSION,
  type DispatchMetadata,
  type HandoffTarget,
  type VersionFunction,
  type WorkerFunction,
  ZDispatchMetadata,
} from '@parley/shared'
import type { AgentRow } from '../agents/index.ts'
import * as agentStore from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { invocableOf, listEnabledFunctions, listVersionedFunctions } from '../functions/index.ts'

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
  /** A version's own function definitions (a voice test run on a numbered version); else the current ones. */
  versionFunctions: VersionFunction[] | null = null,
): Promise<AgentRuntimeConfig> => {
  const [functions, handoffTargets] = await Promise.all([
    agent.functionCallingEnabled ? enabledFunctionsOf(ctx, agent, versionFunctions) : [],
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
    knowledge: agent.knowledgeSourceIds.length > 0,
    // Names, when to use them and how: the numbers stay on the server (POST …/transfer answers them).
    transferDestinations: agent.transferDestinations.map(({ name, whenToUse, mode }) => ({
      name,
      whenToUse,
      mode,
    })),
    voicemail: agent.voicemail,
  }
}

/**
 * The dispatch metadata as LiveKit carries it: checked against the shared schema the worker reads
 * it with, so a server change that breaks the contract fails here, before any room is dispatched.
 */
const serializeDispatchMetadata = (metadata: DispatchMetadata) =>
  JSON.stringify(ZDispatchMetadata.parse(metadata))

/** A contact as the agent sees it: its phone, its name and its custom fields. */
export type ContactOfCall = {
  contactId: string
  phone: string
  name: string | null
  fields: Record<string, unknown>
}

/**
 * The identity the SIP callee gets in the room. The dialer gives it to LiveKit and the dispatch
 * metadata names it, so the agent knows whom to wait for before it speaks.
 */
export const sipIdentityOf = (contactId: string) => `contact-${contactId}`

/**
 * The agent's runtime configuration for one contact: prompt, greeting and last message with their
 * `{{field}}` placeholders filled from the contact. Answers the placeholders no field filled.
 */
export const configForContact = (runtimeConfig: AgentRuntimeConfig, contact: ContactOfCall) => {
  const fields: Record<string, string> = {
    ...fieldsAsText(contact.fields),
    phone: contact.phone,
    ...(contact.name === null ? {} : { name: contact.name }),
  }
  const { filled, unknown } = fillAll(
    {
      prompt: runtimeConfig.prompt,
      greeting: runtimeConfig.greeting,
      lastMessage: runtimeConfig.lastMessage,
      voicemailMessage: runtimeConfig.voicemail.message,
    },
    fields,
  )
  const { voicemailMessage, ...texts } = filled
  return {
    agent: {
      ...runtimeConfig,
      ...texts,
      voicemail: { ...runtimeConfig.voicemail, message: voicemailMessage },
    },
    unknownPlaceholders: unknown,
  }
}

/**
 * Who is on the other side of a call: a web visitor, or a person Parley rang: a contact of a batch
 * job, or the number of one call on request (no batch job; its variables are the contact's fields).
 */
export type CallParty =
  | { direction: 'web'; userId: string }
  | { direction: 'outbound'; contact: ContactOfCall; batchJobId?: string; fromNumber: string }
  | {
      direction: 'inbound'
      callerNumber: string
      calledNumber: string
      sipParticipantIdentity: string
      /** What the agent remembers of this caller's number from earlier calls or chats. */
      memory: string | null
    }

/**
 * An inbound call's configuration: `{{caller_number}}` and `{{called_number}}` filled, and what
 * the agent remembers of the caller after the prompt (as a returning visitor's chat has it).
 */
const configForCaller = (
  runtimeConfig: AgentRuntimeConfig,
  {
    callerNumber,
    calledNumber,
    memory,
  }: { callerNumber: string; calledNumber: string; memory: string | null },
) => {
  const { filled, unknown } = fillAll(
    {
      prompt: runtimeConfig.prompt,
      greeting: runtimeConfig.greeting,
      lastMessage: runtimeConfig.lastMessage,
    },
    { caller_number: callerNumber, called_number: calledNumber },
  )
  const prompt = memory
    ? `${filled.prompt ?? ''}\n\nWhat you remember of this caller from earlier conversations:\n${memory}`.trim()
    : filled.prompt
  return { agent: { ...runtimeConfig, ...filled, prompt }, unknownPlaceholders: unknown }
}

/**
 * The one dispatch-metadata builder, for every way a call opens: the agent's configuration (filled
 * for the contact of a dialled call), the call's ids, and whom the agent talks to. Answers the
 * placeholders no field filled (none for a web call).
 */
export const buildDispatchMetadata = ({
  runtimeConfig,
  callId,
  organizationId,
  roomName,
  party,
}: {
  runtimeConfig: AgentRuntimeConfig
  callId: string
  organizationId: string
  roomName: string
  party: CallParty
}): { metadata: string; unknownPlaceholders: string[] } => {
  if (party.direction === 'web') {
    const metadata = serializeDispatchMetadata({
      version: DISPATCH_METADATA_VERSION,
      callId,
      organizationId,
      roomName,
      direction: 'web',
      userId: party.userId,
      agent: runtimeConfig,
    })
    return { metadata, unknownPlaceholders: [] }
  }
  if (party.direction === 'inbound') {
    const { agent, unknownPlaceholders } = configForCaller(runtimeConfig, party)
    const metadata = serializeDispatchMetadata({
      version: DISPATCH_METADATA_VERSION,
      callId,
      organizationId,
      roomName,
      direction: 'inbound',
      userId: null,
      agent,
      sipParticipantIdentity: party.sipParticipantIdentity,
      contact: { phone: party.callerNumber, name: null },
      callerNumber: party.callerNumber,
      calledNumber: party.calledNumber,
    })
    return { metadata, unknownPlaceholders }
  }
  const { contact, batchJobId, fromNumber } = party
  const { agent, unknownPlaceholders } = configForContact(runtimeConfig, contact)
  const metadata = serializeDispatchMetadata({
    version: DISPATCH_METADATA_VERSION,
    callId,
    organizationId,
    roomName,
    direction: 'outbound',
    userId: null,
    agent,
    sipParticipantIdentity: sipIdentityOf(contact.contactId),
    contact: { ...contact.fields, phone: contact.phone, name: contact.name },
    ...(batchJobId === undefined ? {} : { batchJobId, batchContactId: contact.contactId }),
    fromNumber,
  })
  return { metadata, unknownPlaceholders }
}

/** The agent's enabled functions: as a version defined them (`versionFunctions`), or as they are now. */
const enabledFunctionsOf = (ctx: AppContext, agent: AgentRow, versionFunctions: VersionFunction[] | null) =>
  versionFunctions ? listVersionedFunctions(ctx, agent, versionFunctions) : listEnabledFunctions(ctx, agent)

/**
 * The custom functions of an agent with their headers opened, for the worker only; with
 * `versionFunctions`, as that version defined them (headers are never versioned: each has its
 * function's headers now, none for a function deleted since).
 */
export const listWorkerFunctions = async (
  ctx: AppContext,
  agent: AgentRow,
  versionFunctions: VersionFunction[] | null = null,
): Promise<WorkerFunction[]> => {
  if (!agent.functionCallingEnabled) return []
  return (await enabledFunctionsOf(ctx, agent, versionFunctions)).map((fn) => ({
    id: fn.id,
    name: fn.name,
    description: fn.description,
    ...(fn.headersBox === null
      ? { endpoint: fn.endpoint, method: fn.method, headers: {}, parameters: fn.parameters }
      : invocableOf(ctx, { ...fn, headersBox: fn.headersBox })),
  }))
}
