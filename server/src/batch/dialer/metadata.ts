import type { agentRuntimeConfig, DispatchMetadata } from '../../voice/runtime-config.ts'
import { fillAll } from './placeholders.ts'
import type { ClaimedContact } from './store.ts'

export type AgentRuntimeConfig = Awaited<ReturnType<typeof agentRuntimeConfig>>

/** Contact fields as text for placeholders: strings as given, other JSON values in their JSON form. */
const asText = (fields: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  )

/**
 * The dispatch metadata of an outbound batch call, in the shape every call's worker reads: the
 * agent's runtime configuration with prompt, greeting and last message filled from this contact's
 * fields, the contact itself, and the batch ids. Answers the placeholders no field filled.
 */
export const buildDispatchMetadata = ({
  runtimeConfig,
  contact,
  callId,
  organizationId,
  roomName,
  batchJobId,
  fromNumber,
}: {
  runtimeConfig: AgentRuntimeConfig
  contact: ClaimedContact
  callId: string
  organizationId: string
  roomName: string
  batchJobId: string
  fromNumber: string
}) => {
  const fields: Record<string, string> = {
    ...asText(contact.fields),
    phone: contact.phone,
    ...(contact.name === null ? {} : { name: contact.name }),
  }
  const { filled, unknown } = fillAll(
    {
      prompt: runtimeConfig.prompt,
      greeting: runtimeConfig.greeting,
      lastMessage: runtimeConfig.lastMessage,
    },
    fields,
  )
  const metadata: DispatchMetadata & { batchJobId: string; batchContactId: string; fromNumber: string } = {
    callId,
    organizationId,
    roomName,
    direction: 'outbound',
    userId: null,
    agent: { ...runtimeConfig, ...filled },
    contact: { ...contact.fields, phone: contact.phone, name: contact.name },
    batchJobId,
    batchContactId: contact.contactId,
    fromNumber,
  }
  return { metadata: JSON.stringify(metadata), unknownPlaceholders: unknown }
}
