import type { Request } from 'express'
import type { AppContext } from '../context.ts'
import { apiKeyActorOf } from '../http/authentication.ts'
import { keyCreatorOf } from '../keys/index.ts'
import type { AgentActor } from './permissions.ts'

/**
 * A secret key acts for the member who created it, with that member's role as it is now: a
 * demotion or departure narrows what the key may do at once. A key whose creator left acts
 * as a member who owns nothing. A studio session acts as its member.
 */
export const agentActorOf = async (ctx: AppContext, req: Request): Promise<AgentActor> => {
  const key = apiKeyActorOf(req)
  if (key.member)
    return { organizationId: key.organizationId, userId: key.member.userId, role: key.member.role }
  if (key.keyId === null) return { organizationId: key.organizationId, userId: null, role: 'member' }
  const creator = await keyCreatorOf(ctx, key.keyId)
  return {
    organizationId: key.organizationId,
    userId: creator?.role ? creator.userId : null,
    role: creator?.role ?? 'member',
  }
}
