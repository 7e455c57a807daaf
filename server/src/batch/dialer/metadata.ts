import { fieldsAsText, fillAll } from '@parley/platform'
import { type AgentRuntimeConfig, DISPATCH_METADATA_VERSION } from '@parley/shared'
import { serializeDispatchMetadata } from '../../voice/runtime-config.ts'

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
    },
    fields,
  )
  return { agent: { ...runtimeConfig, ...filled }, unknownPlaceholders: unknown }
}

/**
 * The dispatch metadata of an outbound batch call, in the shape every call's worker reads: the
 * agent's configuration filled for this contact, the contact itself, whom to wait for, and the
 * batch ids. Answers the placeholders no field filled.
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
  contact: ContactOfCall
  callId: string
  organizationId: string
  roomName: string
  batchJobId: string
  fromNumber: string
}) => {
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
    batchJobId,
    batchContactId: contact.contactId,
    fromNumber,
  })
  return { metadata, unknownPlaceholders }
}
