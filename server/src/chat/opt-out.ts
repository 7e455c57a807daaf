import type { AgentRow } from '../agents/index.ts'
import type { AuditBy } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { optOut } from '../do-not-call/index.ts'
import { checkE164 } from '../phone-numbers/index.ts'
import { notifyAgent } from '../webhooks/index.ts'
import type { LlmTool } from './llm.ts'
import * as store from './store.ts'

export const OPT_OUT_TOOL_NAME = 'opt_out'

export const OPT_OUT_TOOL: LlmTool = {
  type: 'function',
  function: {
    name: OPT_OUT_TOOL_NAME,
    description:
      'Use when the visitor asks not to be called again (to be put on the do-not-call list). Their number is listed, ' +
      'your confirmation is shown for you and the chat ends. Ask for the number first when you do not know it.',
    parameters: {
      type: 'object',
      properties: {
        phoneNumber: {
          type: 'string',
          description:
            'The number not to call, with its country code (E.164, e.g. +14155550123); leave out to use the number the conversation is known by',
        },
        confirmation: {
          type: 'string',
          description: "One sentence in the visitor's language confirming they will not be called again",
        },
      },
      required: ['confirmation'],
    },
  },
}

/** What opt_out did: the tool result for the model, and the confirmation to end with (null: not listed). */
export type OptOutDone = { result: string; confirmation: string | null }

const DEFAULT_CONFIRMATION = 'Your number is on our do-not-call list: you will not be called again.'

const refuse = (error: string): OptOutDone => ({ result: JSON.stringify({ error }), confirmation: null })

/**
 * opt_out in a chat: the number the visitor gave (spaces, dots, dashes and brackets dropped; then
 * it must be valid E.164), else the conversation's verified user identifier when that is a
 * phone number, goes on the organization's do-not-call list with the conversation as its
 * source; the agent's webhook hears `contact.opted_out`. Without a valid number the model is told
 * to ask for one, and the chat goes on.
 */
export const optOutOfConversation = async (
  ctx: AppContext,
  {
    agent,
    conversation,
    args,
    by,
  }: { agent: AgentRow; conversation: { id: string; organizationId: string }; args: unknown; by: AuditBy },
): Promise<OptOutDone> => {
  const given = (args ?? {}) as { phoneNumber?: unknown; confirmation?: unknown }
  let phoneNumber =
    typeof given.phoneNumber === 'string' && given.phoneNumber.trim() !== ''
      ? given.phoneNumber.replace(/[\s().-]/g, '')
      : null
  if (phoneNumber === null) {
    const row = await store.findConversation(ctx.db, conversation.id)
    if (row?.userVerified && row.userIdentifier && checkE164(row.userIdentifier))
      phoneNumber = row.userIdentifier
  }
  if (phoneNumber === null)
    return refuse(
      'No phone number is known: ask the visitor for the number not to call, with its country code (e.g. +14155550123), then call opt_out with it',
    )
  if (!checkE164(phoneNumber))
    return refuse(
      `${phoneNumber} is not a valid phone number: ask for it again with its country code (e.g. +14155550123)`,
    )
  const { alreadyListed } = await optOut(ctx, {
    organizationId: conversation.organizationId,
    phoneNumber,
    sourceKind: 'conversation',
    source: conversation.id,
    by,
  })
  await notifyAgent(ctx, agent, 'contact.opted_out', {
    phone_number: phoneNumber,
    agent_id: agent.id,
    agent_name: agent.name,
    channel: 'text',
    call_id: null,
    conversation_id: conversation.id,
    already_listed: alreadyListed,
    opted_out_at: new Date().toISOString(),
  }).catch((error: unknown) =>
    ctx.logger.error({ err: error, conversationId: conversation.id }, 'could not queue contact.opted_out'),
  )
  const confirmation =
    typeof given.confirmation === 'string' && given.confirmation.trim() !== ''
      ? given.confirmation.trim().slice(0, 300)
      : DEFAULT_CONFIRMATION
  return { result: JSON.stringify({ optedOut: true, phoneNumber }), confirmation }
}

/** An agent test's opt_out: nothing is listed; the reply goes as it would. */
export const simulatedOptOut = (args: unknown): OptOutDone => {
  const given = (args ?? {}) as { confirmation?: unknown }
  return {
    result: JSON.stringify({ optedOut: true }),
    confirmation:
      typeof given.confirmation === 'string' && given.confirmation.trim() !== ''
        ? given.confirmation.trim().slice(0, 300)
        : DEFAULT_CONFIRMATION,
  }
}
