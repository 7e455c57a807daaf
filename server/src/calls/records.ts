import type { AppendTranscript, Call, CallDetail, ListCallsQuery } from '@parley/shared'
import { monotonicFactory } from 'ulid'
import { toUsd } from '../billing/service.ts'
import { forgetPlan } from '../chat/plan-cache.ts'
import * as chatStore from '../chat/store.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { pageWindow, paginationOf } from '../http/pagination.ts'
import * as store from './store.ts'

export const presentCall = (call: store.CallRow): Call => ({
  id: call.id,
  agentId: call.agentId,
  userId: call.userId,
  roomName: call.roomName,
  architecture: call.architecture,
  direction: call.direction,
  status: call.status,
  startedAt: call.startedAt.toISOString(),
  endedAt: call.endedAt?.toISOString() ?? null,
  durationSeconds: call.durationSeconds,
  costUsd: toUsd(call.costMicros),
  endReason: call.endReason,
  phoneNumber: call.phoneNumber,
  batchJobId: call.batchJobId,
  batchContactId: call.batchContactId,
  liveAgentId: call.liveAgentId ?? call.agentId,
  createdAt: call.createdAt.toISOString(),
})

export const listCalls = async (ctx: AppContext, organizationId: string, query: ListCallsQuery) => {
  const { calls, total } = await store.listCalls(ctx.db, {
    organizationId,
    agentId: query.agentId,
    status: query.status,
    batchJobId: query.batchJobId,
    ...pageWindow(query),
  })
  return {
    success: true as const,
    data: calls.map(presentCall),
    pagination: paginationOf(query, total),
  }
}

/** Another organization's call answers 404, as a missing one does. */
export const getCall = async (
  ctx: AppContext,
  { organizationId, callId }: { organizationId: string; callId: string },
): Promise<CallDetail> => {
  const call = await store.findCall(ctx.db, { organizationId, id: callId })
  if (!call) throw AppError.notFound('call')
  const transcript = await store.listTranscript(ctx.db, call.id)
  return {
    success: true,
    data: {
      ...presentCall(call),
      transcript: transcript.map((line) => ({ ...line, spokenAt: line.spokenAt.toISOString() })),
    },
  }
}

/** Lines posted together share their time: their ids keep the order they were said in. */
const lineId = monotonicFactory()

/**
 * The worker's lines, appended in one transaction holding the call's lock. A call that continues a
 * chat conversation adds each line to that conversation's messages too (channel `voice`), in the
 * same transaction, so the next typed message is answered with what was said.
 */
export const appendCallTranscript = async (ctx: AppContext, callId: string, input: AppendTranscript) => {
  const { conversationId, ...answer } = await ctx.db.transaction().execute(async (tx) => {
    const call = await store.lockCall(tx, callId)
    if (!call) throw AppError.notFound('call')
    const now = new Date()
    const lines = input.lines.map((line) => ({
      id: lineId(),
      role: line.role,
      content: line.content,
      spokenAt: line.spokenAt ? new Date(line.spokenAt) : now,
    }))
    const total = await store.appendTranscript(tx, { callId, organizationId: call.organizationId, lines })
    if (call.conversationId)
      await chatStore.insertSpokenMessages(tx, { conversationId: call.conversationId, callId, lines })
    return {
      conversationId: call.conversationId,
      success: true as const,
      data: { appended: input.lines.length, total },
    }
  })
  // This instance's guess at the conversation's next reply no longer holds (another instance's
  // guess is corrected by its claim, as after any change made elsewhere).
  if (conversationId) forgetPlan(ctx, conversationId)
  return answer
}
