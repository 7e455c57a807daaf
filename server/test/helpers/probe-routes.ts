import { z } from 'zod'
import type { ExtendApp } from '../../src/app.ts'

/**
 * Probe routes for the session-creation credentials: what `chatSessionCreator` and
 * `voiceSessionCreator` resolve a request to. Voice sessions have no route yet, so the
 * credential rules are checked here; the chat routes themselves are tested in src/chat.
 */
export const mountChatProbes: ExtendApp = ({ routes }) => {
  const ZWho = z.object({ kind: z.string(), organizationId: z.string() })
  for (const [path, auth] of [
    ['/v1/chat/probe/creator', 'chatSessionCreator'],
    ['/v1/chat/probe/voice-creator', 'voiceSessionCreator'],
  ] as const) {
    routes.add({
      method: 'post',
      path,
      summary: 'Probe: who the session-creation credentials resolve to',
      tag: 'Probe',
      auth,
      response: ZWho,
      handle: ({ req }) => ({
        kind: req.actor?.kind ?? 'none',
        organizationId: req.actor && 'organizationId' in req.actor ? req.actor.organizationId : '',
      }),
    })
  }
}
