import type { AppendTranscript, Call, CallDetail, ListCallsQuery } from '@parley/shared'
import { ulid } from 'ulid'
import { toUsd } from '../billing/service.ts'
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

/** The worker's lines, appended in one transaction holding the call's lock. */
export const appendCallTranscript = async (ctx: AppContext, callId: string, input: AppendTranscript) =>
  ctx.db.transaction().execute(async (tx) => {
    const call = await store.lockCall(tx, callId)
    if (!call) throw AppError.notFound('call')
    const now = new Date()
    const total = await store.appendTranscript(tx, {
      callId,
      organizationId: call.organizationId,
      lines: input.lines.map((line) => ({
        id: ulid(),
        role: line.role,
        content: line.content,
        spokenAt: line.spokenAt ? new Date(line.spokenAt) : now,
      })),
    })
    return { success: true as const, data: { appended: input.lines.length, total } }
  })
