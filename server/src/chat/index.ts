/**
 * chat/: text conversations with an agent: sessions, sending and streaming replies, their billing
 * and recovery, and the conversation's messages (spoken ones included). Other areas use it through
 * this file.
 */
export { countActiveReplies, waitForActiveReplies } from './active-replies.ts'
export { assertCredits, priceReply, replyCharge } from './billing.ts'
export { type ConversationAnalysisQueue, registerChatJobs, registerConversationAnalysis } from './end.ts'
export { completionSourceFor, type LlmMessage } from './llm.ts'
export { forgetPlan } from './plan-cache.ts'
export { startReplyRecovery } from './recover.ts'
export { countOutputTokens, countPromptTokens, roundWorstCaseMicros } from './reply-cost.ts'
export { registerChatRoutes } from './routes.ts'
export { STALE_REPLY_MS } from './send.ts'
export { authenticateChatSession } from './session-auth.ts'
export { findActiveConversation, sessionNotFound } from './sessions.ts'
export { type AnswerFunction, completeForTest, runSimulatedReply, type SimulatedReply } from './simulate.ts'
export {
  findConversation,
  insertSpokenMessages,
  insertToolCalls,
  listMessages,
  listTurnsBefore,
} from './store.ts'
