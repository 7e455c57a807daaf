import type { AppendTranscript, Call, CallDetail, ListCallsQuery } from '@parley/shared'
import { presentAnalysis } from '../analysis/index.ts'
import { toUsd } from '../billing/index.ts'
import * as chatStore from '../chat/index.ts'
import { forgetPlan } from '../chat/index.ts'
import type { AppContext } from '../context.ts'
import { monotonicUlids } from '../crypto/ids.ts'
import { AppError } from '../http/app-error.ts'
import { checkCreatedRange, decodeCursor, encodeCursor } from '../http/cursor.ts'
import { pageWindow, paginationOf } from '../http/pagination.ts'
import { announceCallEvents, insertCallEvents } from './events.ts'
import * as store from './store.ts'
import { listTransfers } from './transfer-store.ts'

const analysisOf = (call: store.AnalysedCallRow) =>
  presentAnalysis({
    analysis_summary: call.analysisSummary,
    analysis_sentiment: call.analysisSentiment,
    analysis_outcome: call.analysisOutcome,
    analysis_data: call.analysisData,
    analyzed_at: call.analyzedAt,
  })

export const presentCall = (call: store.AnalysedCallRow): Call => ({
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
  outcome: call.outcome,
  sipStatus: call.sipStatus,
  amdVerdict: call.amdVerdict,
  phoneNumber: call.phoneNumber,
  calledNumber: call.calledNumber,
  batchJobId: call.batchJobId,
  batchContactId: call.batchContactId,
  conversationId: call.conversationId,
  analysis: analysisOf(call),
  analysisStatus: call.analyzedAt ? 'analyzed' : call.analysisStatus === 'skipped' ? 'skipped' : null,
  analysisError: call.analyzedAt ? null : call.analysisError,
  liveAgentId: call.liveAgentId ?? call.agentId,
  createdAt: call.createdAt.toISOString(),
})

export const listCalls = async (ctx: AppContext, organizationId: string, query: ListCallsQuery) => {
  checkCreatedRange(query)
  if (query.cursor && query.page !== 1) throw AppError.badRequest('cursor: send cursor or page, not both')
  const { cursor, createdFrom, createdTo, page, limit, ...filters } = query
  const { calls, total } = await store.listCalls(ctx.db, {
    ...filters,
    organizationId,
    createdFrom: createdFrom ? new Date(createdFrom) : undefined,
    createdTo: createdTo ? new Date(createdTo) : undefined,
    after: cursor ? decodeCursor(cursor) : null,
    ...pageWindow(query),
  })
  const shown = calls.slice(0, query.limit)
  const last = shown.at(-1)
  return {
    success: true as const,
    data: shown.map(presentCall),
    pagination: paginationOf(query, total),
    nextCursor:
      calls.length > query.limit && last?.cursorAt
        ? encodeCursor({ createdAt: last.cursorAt, id: last.id })
        : null,
  }
}

/** Another organization's call answers 404, as a missing one does. */
export const getCall = async (
  ctx: AppContext,
  { organizationId, callId }: { organizationId: string; callId: string },
): Promise<CallDetail> => {
  const call = await store.findCall(ctx.db, { organizationId, id: callId })
  if (!call) throw AppError.notFound('call')
  const [transcript, transfers, toolCalls] = await Promise.all([
    store.listTranscript(ctx.db, call.id),
    listTransfers(ctx.db, call.id),
    store.listCallToolCalls(ctx.db, call.id),
  ])
  return {
    success: true,
    data: {
      ...presentCall(call),
      transcript: transcript.map((line) => ({ ...line, spokenAt: line.spokenAt.toISOString() })),
      transfers,
      toolCalls: toolCalls.map((toolCall) => ({ ...toolCall, createdAt: toolCall.createdAt.toISOString() })),
    },
  }
}

/** Lines posted together share their time: their ids keep the order they were said in. */
const lineId = monotonicUlids()

/** Tool calls posted together share their time: their ids keep the order they were made in. */
const toolCallId = monotonicUlids()

/**
 * The worker's lines and tool calls, stored in one transaction holding the call's lock; those
 * whose worker id the call already has (a retried batch) are skipped. A call that continues a chat
 * conversation adds each new line to that conversation's messages (channel `voice`) and each tool
 * call to its tool calls, in the same transaction, so the next typed message is answered with what
 * was said and the conversation shows what the agent did.
 */
export const appendCallTranscript = async (ctx: AppContext, callId: string, input: AppendTranscript) => {
  const { conversationId, ...answer } = await ctx.db.transaction().execute(async (tx) => {
    const call = await store.lockCall(tx, callId)
    if (!call) throw AppError.notFound('call')
    const now = new Date()
    const { stored, total } = await store.appendTranscript(tx, {
      callId,
      organizationId: call.organizationId,
      lines: input.lines.map((line) => ({
        id: lineId(),
        workerLineId: line.id ?? null,
        role: line.role,
        content: line.content,
        spokenAt: line.spokenAt ? new Date(line.spokenAt) : now,
        interrupted: line.interrupted ?? false,
      })),
    })
    await insertCallEvents(
      tx,
      stored.map((line) => ({
        callId,
        type: 'transcript' as const,
        data: { role: line.role, content: line.content, spokenAt: line.spokenAt.toISOString() },
      })),
    )
    const unique = [...new Map(input.toolCalls.map((toolCall) => [toolCall.id, toolCall])).values()]
    const toolCalls = await store.insertCallToolCalls(tx, {
      callId,
      organizationId: call.organizationId,
      calls: unique.map((toolCall) => ({
        id: toolCallId(),
        workerCallId: toolCall.id,
        kind: toolCall.kind,
        name: toolCall.name,
        arguments: toolCall.arguments,
        status: toolCall.status,
        targetAgentId: toolCall.targetAgentId,
        at: toolCall.calledAt ? new Date(toolCall.calledAt) : now,
      })),
    })
    if (call.conversationId) {
      if (stored.length > 0)
        await chatStore.insertSpokenMessages(tx, {
          conversationId: call.conversationId,
          callId,
          lines: stored,
        })
      await chatStore.insertToolCalls(tx, { conversationId: call.conversationId, calls: toolCalls })
    }
    return {
      conversationId: call.conversationId,
      success: true as const,
      data: { appended: stored.length, total },
    }
  })
  // This instance's guess at the conversation's next reply no longer holds (another instance's
  // guess is corrected by its claim, as after any change made elsewhere).
  if (conversationId) forgetPlan(ctx, conversationId)
  await announceCallEvents(ctx, [callId])
  return answer
}
