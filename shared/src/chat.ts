import { z } from 'zod'

/** The spec's limit on one user message ("Limits"). */
export const CHAT_MESSAGE_MAX_LENGTH = 10_000

export const ZCreateChatSession = z
  .object({
    agent_id: z.string().trim().min(1),
    metadata: z.record(z.string(), z.unknown()).optional(),
    user_identifier: z.string().trim().min(1).max(200).optional().meta({
      description:
        'Who the person chatting is in your system. Stored as given (you see it on the conversation); it names their memory only when trusted: sent with a secret key or a studio session, or with a widget key and a valid user_hash',
    }),
    user_hash: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal characters (HMAC-SHA256)')
      .optional()
      .meta({
        description:
          "Proof from your own server that user_identifier is this visitor: hex HMAC-SHA256 of user_identifier under your organization's identity secret (studio: Organization → Identity verification). A wrong one is 403 invalid_user_hash",
        example: 'a3f1c2d4e5b6a7980f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a6978',
      }),
    visitor_id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{16,128}$/, 'must be 16 to 128 letters, digits, - or _')
      .optional()
      .meta({
        description:
          "This browser's own anonymous id (the widget makes a random UUID once per browser and API host). An unproven user_identifier's memory is filed under it, so it is recalled only in this browser",
        example: '3b241101-e2bb-4255-8caf-4136c566a962',
      }),
    agent_version: z.literal('draft').optional().meta({
      description:
        "Studio sessions only (the studio's Try it): talk to the agent's unpublished draft instead of its published version. Sent with a key it is 403 forbidden: visitors always get the published version",
      example: 'draft',
    }),
  })
  .refine((body) => body.user_hash === undefined || body.user_identifier !== undefined, {
    message: 'user_hash proves a user_identifier: send both',
    path: ['user_hash'],
  })
  .meta({ id: 'CreateChatSessionRequest' })
export type CreateChatSession = z.infer<typeof ZCreateChatSession>

export const ZChatSession = z
  .object({
    conversation_id: z.string(),
    session_token: z.string().meta({ description: 'JWT, valid 24 hours; send as Authorization: Bearer' }),
    agent_name: z.string(),
    greeting: z.string().nullable(),
    agent_model: z.string(),
    voice_available: z.boolean().meta({
      description:
        'Whether this deployment offers voice sessions (LiveKit configured); the widget hides its microphone when not',
    }),
  })
  .meta({ id: 'ChatSession' })
export type ChatSession = z.infer<typeof ZChatSession>

export const ZConversationPath = z.object({ conversation_id: z.string().min(1) })

/** Length is checked by the service so that an over-long message answers `message_too_long`. */
export const ZSendChatMessage = z
  .object({
    message: z.string().trim().min(1, 'must not be empty').meta({
      maxLength: CHAT_MESSAGE_MAX_LENGTH,
      description: 'Longer messages answer 400 message_too_long',
    }),
  })
  .meta({ id: 'SendChatMessageRequest' })
export type SendChatMessage = z.infer<typeof ZSendChatMessage>

/**
 * Headers of a send that can be resumed. The same key and message again within 5 minutes follow
 * (or replay) that one reply instead of generating another; Last-Event-ID (what SSE clients send
 * on a retry) says which events the client already has.
 */
export const ZSendChatMessageHeaders = z.object({
  'idempotency-key': z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 visible ASCII characters')
    .optional()
    .meta({
      description: 'One key per message; a retry with it resumes the reply; another message answers 409',
    }),
  'last-event-id': z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ description: 'The id of the last event received; the replay starts after it' }),
})
export type SendChatMessageHeaders = z.infer<typeof ZSendChatMessageHeaders>

export const ZChatMessage = z
  .object({
    role: z.enum(['user', 'assistant']),
    content: z.string(),
    timestamp: z.string().meta({ description: 'ISO 8601' }),
    token_count: z.number().int().nullable(),
    channel: z.enum(['text', 'voice']).meta({
      description: 'Typed in the chat, or spoken in a voice call that continued this conversation',
    }),
    sources: z
      .array(z.object({ title: z.string(), url: z.string().nullable(), snippet: z.string() }))
      .optional()
      .meta({
        description: 'Assistant replies: the knowledge sources the reply was given (as its `sources` event)',
      }),
  })
  .meta({ id: 'ChatMessage' })
export type ChatMessage = z.infer<typeof ZChatMessage>

export const ZChatHistoryQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
})
export type ChatHistoryQuery = z.infer<typeof ZChatHistoryQuery>

export const ZChatHistory = z
  .object({ messages: z.array(ZChatMessage), count: z.number().int() })
  .meta({ id: 'ChatHistory' })
export type ChatHistory = z.infer<typeof ZChatHistory>

export const ZEndChatSession = z
  .object({ success: z.literal(true), message: z.string() })
  .meta({ id: 'EndChatSessionResponse' })
export type EndChatSession = z.infer<typeof ZEndChatSession>

export const ZStopChatReply = z.object({ stopped: z.literal(true) }).meta({
  id: 'StopChatReplyResponse',
  description: 'A stop was sent to the reply in progress, if any; its stored text is marked stopped',
})

/** Data of each SSE event of the send-message stream (spec "SSE events"), as schemas for the document. */
export const chatStreamEventData = {
  stream_start: z.object({ agent_name: z.string() }),
  chunk: z.object({ delta: z.string() }),
  tool_call: z.object({ name: z.string(), status: z.literal('executing') }),
  tool_result: z.object({ name: z.string(), status: z.literal('completed') }),
  handoff: z.object({ from_agent: z.string(), to_agent: z.string() }),
  /** Knowledge passages the reply was given, once, before its first chunk (agents with knowledge sources). */
  sources: z.object({
    sources: z.array(z.object({ title: z.string(), url: z.string().nullable(), snippet: z.string() })),
  }),
  stream_end: z.object({
    usage: z.object({ input_tokens: z.number().int(), output_tokens: z.number().int() }),
    end_session: z.boolean(),
  }),
  error: z.object({ error: z.string() }),
}

/** Data of each SSE event of the send-message stream (spec "SSE events"). */
export type ChatStreamEvents = {
  [Name in keyof typeof chatStreamEventData]: z.infer<(typeof chatStreamEventData)[Name]>
}
export type ChatStreamEventName = keyof ChatStreamEvents
