import { ZCallIdParams, ZCallKnowledgeResult, ZCallKnowledgeSearch } from '@parley/shared'
import { findServingAgent } from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import type { RouteTable } from '../http/route-table.ts'
import { knowledgeInstruction, retrieveForReply } from './retrieve.ts'
import { findLiveCall } from './store.ts'

/**
 * The passages for a live call's question from its live agent's knowledge sources (the dispatched
 * agent, or the last handoff's), as a chat turn gets them: the voice worker's `search_knowledge`.
 */
export const searchForCall = async (
  ctx: AppContext,
  { callId, query }: { callId: string; query: string },
) => {
  const call = await findLiveCall(ctx.db, callId)
  if (!call) throw AppError.notFound('call')
  if (call.status !== 'active') throw AppError.conflict('The call has ended', 'call_ended')
  const agent = await findServingAgent(ctx.db, {
    organizationId: call.organizationId,
    id: call.liveAgentId ?? call.agentId,
  })
  if (!agent) throw AppError.notFound('agent')
  const retrieval = await retrieveForReply(ctx, {
    organizationId: agent.organizationId,
    sourceIds: agent.knowledgeSourceIds,
    message: query,
  })
  return {
    passages: retrieval?.passages ?? [],
    sources: retrieval?.sources ?? [],
    instruction: retrieval ? knowledgeInstruction(retrieval) : null,
  }
}

export const registerKnowledgeWorkerRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'post',
    path: '/v1/calls/{callId}/knowledge/search',
    summary: "Passages for a call's question from its live agent's knowledge sources (the worker only)",
    tag: 'Calls',
    auth: 'worker',
    params: ZCallIdParams,
    body: ZCallKnowledgeSearch,
    response: ZCallKnowledgeResult,
    errors: [404, 409],
    handle: ({ params, body }) => searchForCall(ctx, { callId: params.callId, query: body.query }),
  })
}
