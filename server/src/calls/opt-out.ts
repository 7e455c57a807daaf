import * as agentStore from '../agents/index.ts'
import type { AuditBy } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { optOut } from '../do-not-call/index.ts'
import { AppError } from '../http/app-error.ts'
import { notifyAgent } from '../webhooks/index.ts'
import * as callStore from './store.ts'

/**
 * opt_out on a phone call (the worker's POST /v1/calls/{callId}/opt-out): the call's other party
 * (the callee of an outbound call, the caller of an inbound one) goes on the organization's
 * do-not-call list with the call's id as its source, and the live agent's webhook hears
 * `contact.opted_out`. The worker then says its confirming sentence and ends the call (opted_out).
 */
export const optOutOfCall = async (ctx: AppContext, { callId, by }: { callId: string; by: AuditBy }) => {
  const call = await callStore.findCallById(ctx.db, callId)
  if (!call) throw AppError.notFound('call')
  if (call.status !== 'active') throw AppError.conflict('The call has ended', 'call_ended')
  if (!call.phoneNumber)
    throw AppError.badRequest('A web call has no phone number to put on the do-not-call list')
  const { alreadyListed } = await optOut(ctx, {
    organizationId: call.organizationId,
    phoneNumber: call.phoneNumber,
    sourceKind: 'call',
    source: call.id,
    by,
  })
  const agent = await agentStore.findServingAgent(ctx.db, {
    organizationId: call.organizationId,
    id: call.liveAgentId ?? call.agentId,
  })
  if (agent)
    await notifyAgent(ctx, agent, 'contact.opted_out', {
      phone_number: call.phoneNumber,
      agent_id: agent.id,
      agent_name: agent.name,
      channel: 'voice',
      call_id: call.id,
      conversation_id: null,
      already_listed: alreadyListed,
      opted_out_at: new Date().toISOString(),
    }).catch((error: unknown) =>
      ctx.logger.error({ err: error, callId }, 'could not queue contact.opted_out'),
    )
  return { success: true as const, data: { phoneNumber: call.phoneNumber, alreadyListed } }
}
