import type { RequestHandler } from 'express'
import { z } from 'zod'
import type { ExtendApp } from '../../src/app.ts'
import { chatRatePolicies, limitRequests, type RatePolicy } from '../../src/http/rate-limit.ts'
import { openEventStream } from '../../src/http/sse.ts'
import { authenticateApiKey } from '../../src/keys/authenticate.ts'

/**
 * Minimal stand-ins for the chat routes (issue 3 lands before the chat API): the real key
 * authentication, rate-limit middleware, SSE writer and stream registry, mounted on the real
 * server's middleware chain under /v1/chat so errors take the chat area's body shape.
 */
export const mountChatProbes: ExtendApp = ({ app, ctx, routes }) => {
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

  const requireChatKey: RequestHandler = async (req, _res, next) => {
    req.actor = await authenticateApiKey({
      ctx,
      key: req.get('x-api-key'),
      origin: req.get('origin'),
      allowWidget: true,
    })
    next()
  }
  const keyIdOf = (req: Parameters<RequestHandler>[0]) =>
    req.actor?.kind === 'apiKey' ? req.actor.keyId : ''
  const limit = (policy: RatePolicy, keyOf: Parameters<typeof limitRequests>[0]['keyOf']) =>
    limitRequests({ rateLimits: ctx.rateLimits, policyOf: () => policy, keyOf })
  const perSession = (req: Parameters<RequestHandler>[0]) => String(req.params.id)
  const ok: RequestHandler = (_req, res) => {
    res.json({ ok: true })
  }

  app.post('/v1/chat/probe/sessions', requireChatKey, limit(chatRatePolicies.createSession, keyIdOf), ok)
  app.post('/v1/chat/probe/sessions/:id/messages', limit(chatRatePolicies.sendMessage, perSession), ok)
  app.get('/v1/chat/probe/sessions/:id/messages', limit(chatRatePolicies.readHistory, perSession), ok)
  app.post('/v1/chat/probe/sessions/:id/end', limit(chatRatePolicies.endSession, perSession), ok)

  app.get('/v1/chat/probe/stream', requireChatKey, (req, res) => {
    const stream = openEventStream(res)
    ctx.streams.register({ keyId: keyIdOf(req), stream })
    stream.send('stream_start', { agent_name: 'probe' })
  })
}
