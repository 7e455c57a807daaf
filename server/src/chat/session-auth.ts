import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import type { ChatSessionActor } from '../http/types.ts'
import * as store from './store.ts'
import { invalidChatToken, verifyChatToken } from './token.ts'

/**
 * A session token is good while its key is: the key's status is read on every call (one indexed
 * row), so a revoked or disabled key stops its sessions on every instance at once.
 */
export const authenticateChatSession = async (
  ctx: AppContext,
  { token, conversationId }: { token: string | undefined; conversationId: string },
): Promise<ChatSessionActor> => {
  if (!token) throw invalidChatToken()
  const claims = verifyChatToken(ctx.config.jwtSecret, token)
  if (claims.conversationId !== conversationId)
    throw AppError.forbidden('Conversation ID does not match session token', 'conversation_mismatch')
  if (claims.keyId) {
    const status = await store.findKeyStatus(ctx.db, claims.keyId)
    if (status !== 'active') throw invalidChatToken()
  }
  return { kind: 'chatSession', ...claims }
}
