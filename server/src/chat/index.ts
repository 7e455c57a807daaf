/**
 * chat/: text conversations with an agent: sessions, sending and streaming replies, their billing
 * and recovery, and the conversation's messages (spoken ones included). Other areas use it through
 * this file.
 */
export { waitForActiveReplies } from './active-replies.ts'
export { assertCredits } from './billing.ts'
export { registerChatJobs } from './end.ts'
export { forgetPlan } from './plan-cache.ts'
export { startReplyRecovery } from './recover.ts'
export { registerChatRoutes } from './routes.ts'
export { STALE_REPLY_MS } from './send.ts'
export { authenticateChatSession } from './session-auth.ts'
export { findActiveConversation, sessionNotFound } from './sessions.ts'
export {
  findConversation,
  insertSpokenMessages,
  insertToolCalls,
  listMessages,
  listTurnsBefore,
} from './store.ts'
