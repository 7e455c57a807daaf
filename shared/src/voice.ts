import { z } from 'zod'

/** POST /v1/chat/voice-sessions (spec "Text chat", the voice-sessions row). */
export const ZCreateVoiceSession = z
  .object({
    agent_id: z
      .string({ error: 'agent id is required' })
      .trim()
      .min(1, 'agent id is required')
      .max(100)
      .meta({ description: 'A pipeline or realtime agent of the key’s organization' }),
    conversation_id: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .meta({
        description:
          'A chat conversation this call continues (the visitor switches from typing to talking): ' +
          'the agent hears its recent turns and what is said lands in its history. Needs session_token.',
        example: '01JD3Q8X2N4V6B8C0E2G4J6L8N',
      }),
    session_token: z.string().min(1).max(4096).optional().meta({
      description: 'That chat session’s session_token: the proof that the caller holds the conversation',
    }),
  })
  .refine((body) => (body.conversation_id === undefined) === (body.session_token === undefined), {
    message: 'conversation_id and session_token go together',
    path: ['session_token'],
  })
  .meta({ id: 'CreateVoiceSessionRequest' })
export type CreateVoiceSession = z.infer<typeof ZCreateVoiceSession>

export const ZVoiceSession = z
  .object({
    room_name: z.string().meta({ description: 'agent_{agent_id}_{user_id}_{timestamp}' }),
    token: z.string().meta({ description: 'LiveKit participant token, valid 1 hour' }),
    livekit_url: z.string().meta({ description: 'WebSocket URL of the media server' }),
    agent_name: z.string(),
  })
  .meta({ id: 'VoiceSession' })
export type VoiceSession = z.infer<typeof ZVoiceSession>

/** Per API key (the spec leaves it open; chat session creation allows 100). */
export const VOICE_SESSIONS_PER_MINUTE = 60
