import type { AgentRow } from '../../agents/store.ts'
import { fillAll } from './placeholders.ts'
import type { ClaimedContact } from './store.ts'

/** Contact fields as text for placeholders: strings as given, other JSON values in their JSON form. */
const asText = (fields: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  )

/**
 * What the voice agent worker receives in its dispatch: the agent's runtime configuration with
 * prompts and greeting filled from this contact's fields, the contact itself, and the call's ids.
 */
export const buildDispatchMetadata = ({
  agent,
  contact,
  callId,
  batchJobId,
  fromNumber,
}: {
  agent: AgentRow
  contact: ClaimedContact
  callId: string
  batchJobId: string
  fromNumber: string
}) => {
  const fields: Record<string, string> = {
    ...asText(contact.fields),
    phone: contact.phone,
    ...(contact.name === null ? {} : { name: contact.name }),
  }
  const { filled, unknown } = fillAll(
    { systemPrompt: agent.sysMsg, greetingMessage: agent.greetingMessage, lastMessage: agent.lastMessage },
    fields,
  )
  const metadata = {
    callId,
    direction: 'outbound' as const,
    batchJobId,
    batchContactId: contact.contactId,
    fromNumber,
    contact: { phone: contact.phone, name: contact.name, fields: contact.fields },
    agent: {
      id: agent.id,
      name: agent.name,
      architecture: agent.agentArchitecture,
      model: agent.model,
      stt: agent.stt,
      tts: agent.tts,
      voiceId: agent.voiceId,
      realtimeProvider: agent.realtimeProvider,
      systemPrompt: filled.systemPrompt,
      greetingType: agent.greetingType,
      greetingMessage: filled.greetingMessage,
      lastMessage: filled.lastMessage,
      temperature: agent.temperature,
      inactivityTimeout: agent.inactivityTimeout,
      languages: agent.languages,
      functionCallingEnabled: agent.functionCallingEnabled,
      enabledFunctions: agent.enabledFunctions,
      enabledCustomFunctions: agent.enabledCustomFunctions,
    },
  }
  return { metadata: JSON.stringify(metadata), unknownPlaceholders: unknown }
}
