import {
  VOICE_SESSIONS_PER_MINUTE,
  ZCreateVoiceSession,
  ZLiveKitWebhookAck,
  ZVoiceSession,
} from '@parley/shared'
import { createVoiceSession } from '../calls/index.ts'
import type { AppContext } from '../context.ts'
import { sessionCreatorLimitKey, sessionCreatorOf } from '../http/authentication.ts'
import { limitRequests } from '../http/rate-limit.ts'
import type { RouteTable } from '../http/route-table.ts'
import { handleLiveKitEvent, receiveLiveKitWebhook } from './webhook.ts'

export const registerVoiceRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'post',
    path: '/v1/chat/voice-sessions',
    summary: 'Start a voice session: a LiveKit room with the agent dispatched, and a participant token',
    tag: 'Voice',
    auth: 'voiceSessionCreator',
    before: [
      limitRequests({
        rateLimits: ctx.rateLimits,
        policyOf: () => ({ name: 'voice-create-session', points: VOICE_SESSIONS_PER_MINUTE }),
        keyOf: sessionCreatorLimitKey,
      }),
    ],
    body: ZCreateVoiceSession,
    response: ZVoiceSession,
    errors: [402, 403, 404, 429],
    handle: ({ body, req }) => createVoiceSession(ctx, { actor: sessionCreatorOf(req), input: body }),
  })

  routes.add({
    method: 'post',
    path: '/livekit/webhook',
    summary: 'LiveKit webhooks (application/webhook+json, signed with the API secret)',
    tag: 'Voice',
    auth: 'none',
    response: ZLiveKitWebhookAck,
    errors: [401, 503],
    handle: async ({ req }) => {
      // app.ts hands this path its body unparsed: the signature covers the exact bytes.
      const rawBody = typeof req.body === 'string' ? req.body : ''
      const event = await receiveLiveKitWebhook(ctx, { rawBody, authorization: req.get('authorization') })
      await handleLiveKitEvent(ctx, event)
      return { received: true as const }
    },
  })
}
