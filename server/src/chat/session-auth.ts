import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import type { ChatSessionActor } from '../http/types.ts'
import { invalidChatToken, verifyChatToken } from './token.ts'

/**
 * A session token names its conversation, organization, agent and key. The key must still be
 * active: each chat call checks that in the same statement that reads (or claims) the
 * conversation, so a revoked or disabled key stops its sessions on every instance at once
 * without a read of its own.
 */
export const authenticateChatSession = async (
  ctx: AppContext,
  { token, conversationId }: { token: string | undefined; conversationId: string },
): Promise<ChatSessionActor> => {
  if (!token) throw invalidChatToken()
  const claims = verifyChatToken(ctx.config.jwtSecret, token)
  if (claims.conversationId !== conversationId)
    throw AppError.forbidden('Conversation ID does not match session token', 'conversation_mismatch')
  return { kind: 'chatSession', ...claims }
}
