import {
  ZChatHistory,
  ZChatHistoryQuery,
  ZChatSession,
  ZConversationPath,
  ZCreateChatSession,
  ZEndChatSession,
  ZSendChatMessage,
  ZSendChatMessageHeaders,
  ZStopChatReply,
} from '@parley/shared'
import type { Request } from 'express'
import { z } from 'zod'
import { auditByOf } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { chatSessionActorOf, sessionCreatorLimitKey, sessionCreatorOf } from '../http/authentication.ts'
import { chatRatePolicies, limitRequests, type RatePolicy } from '../http/rate-limit.ts'
import type { RouteTable } from '../http/route-table.ts'
import { listenForStops } from './active-replies.ts'
import { endConversation } from './end.ts'
import { sendMessage, stopReply } from './send.ts'
import { createSession, findActiveConversation, readHistory } from './sessions.ts'

const TAG = 'Text chat'

export const registerChatRoutes = (routes: RouteTable, ctx: AppContext) => {
  listenForStops(ctx)
  const limit = (policy: RatePolicy, keyOf: (req: Request) => string) =>
    limitRequests({ rateLimits: ctx.rateLimits, policyOf: () => policy, keyOf })
  const perSession = (req: Request) => chatSessionActorOf(req).conversationId

  routes.add({
    method: 'post',
    path: '/v1/chat/sessions',
    summary: 'Start a chat session with a text agent',
    tag: TAG,
    auth: 'chatSessionCreator',
    before: [limit(chatRatePolicies.createSession, sessionCreatorLimitKey)],
    body: ZCreateChatSession,
    response: ZChatSession,
    errors: [402, 403, 404, 429, 503],
    handle: ({ body, req }) => createSession(ctx, { actor: sessionCreatorOf(req), input: body }),
  })

  routes.add({
    method: 'post',
    path: '/v1/chat/sessions/{conversation_id}/messages',
    summary: 'Send a message; the reply streams as Server-Sent Events',
    tag: TAG,
    auth: 'chatSession',
    before: [limit(chatRatePolicies.sendMessage, perSession)],
    params: ZConversationPath,
    body: ZSendChatMessage,
    headers: ZSendChatMessageHeaders,
    response: z.string().meta({
      description:
        'text/event-stream of the spec’s SSE events, plus `sources` (once, after stream_start, when the agent has knowledge sources and passages were found): {sources: [{title, url, snippet}]}, the passages the reply was given',
    }),
    responseContentType: 'text/event-stream',
    errors: [402, 403, 404, 409, 429, 503],
    handle: async ({ body, req, res }) => {
      const headers = ZSendChatMessageHeaders.safeParse({
        'idempotency-key': req.get('idempotency-key'),
        'last-event-id': req.get('last-event-id') || undefined,
      })
      if (!headers.success)
        throw AppError.badRequest(
          `${headers.error.issues[0]?.path.join('.')}: ${headers.error.issues[0]?.message}`,
        )
      await sendMessage(ctx, {
        actor: chatSessionActorOf(req),
        message: body.message,
        headers: headers.data,
        res,
        by: auditByOf(req),
      })
      return ''
    },
  })

  routes.add({
    method: 'post',
    path: '/v1/chat/sessions/{conversation_id}/messages/stop',
    summary: 'Stop the reply that is streaming',
    tag: TAG,
    auth: 'chatSession',
    before: [limit(chatRatePolicies.sendMessage, perSession)],
    params: ZConversationPath,
    response: ZStopChatReply,
    errors: [403, 404, 429],
    handle: ({ req }) => stopReply(ctx, chatSessionActorOf(req)),
  })

  routes.add({
    method: 'get',
    path: '/v1/chat/sessions/{conversation_id}/messages',
    summary: 'Read the conversation so far, oldest first',
    tag: TAG,
    auth: 'chatSession',
    before: [limit(chatRatePolicies.readHistory, perSession)],
    params: ZConversationPath,
    query: ZChatHistoryQuery,
    response: ZChatHistory,
    errors: [403, 404, 429],
    handle: ({ query, req }) => readHistory(ctx, { actor: chatSessionActorOf(req), query }),
  })

  routes.add({
    method: 'post',
    path: '/v1/chat/sessions/{conversation_id}/end',
    summary: 'End the session: billing closed, memory ingested, webhook fired',
    tag: TAG,
    auth: 'chatSession',
    before: [limit(chatRatePolicies.endSession, perSession)],
    params: ZConversationPath,
    response: ZEndChatSession,
    errors: [403, 404, 429],
    handle: async ({ req }) => {
      const conversation = await findActiveConversation(ctx, chatSessionActorOf(req))
      let ended: Awaited<ReturnType<typeof endConversation>>
      try {
        ended = await endConversation(ctx, { conversationId: conversation.id, status: 'ended' })
      } catch (error) {
        throw AppError.internal(error, 'Failed to end session')
      }
      // Another end got there first: for this caller the session is already gone.
      if (!ended) throw AppError.notFound('session', 'session_not_found')
      return { success: true as const, message: 'Session ended' }
    },
  })
}
