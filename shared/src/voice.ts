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
