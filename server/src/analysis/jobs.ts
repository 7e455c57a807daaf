import * as agentStore from '../agents/index.ts'
import * as chatStore from '../chat/index.ts'
import type { AppContext } from '../context.ts'
import { notifyAgent } from '../webhooks/index.ts'
import { analyzeTranscript } from './analyze.ts'
import { type Analysis, isAnalyzed, type Subject, saveAnalysis } from './store.ts'

export const CHAT_ANALYSIS_JOB = 'chat.analyze'
export const CALL_ANALYSIS_JOB = 'call.analyze'
const TRANSCRIPT_ROWS = 500

/** The analysis as the `*.analyzed` webhooks carry it. */
export const eventData = (analysis: Analysis) => ({
  summary: analysis.summary,
  sentiment: analysis.sentiment,
  outcome: analysis.outcome,
  data: analysis.data,
})

/**
 * A chat session's analysis (the agenda job of an ended session whose agent asks for it): the
 * whole conversation, typed and spoken, then `conversation.analyzed` to the agent's endpoint.
 */
export const analyzeConversation = async (ctx: AppContext, conversationId: string) => {
  const subject: Subject = { kind: 'conversation', id: conversationId }
  const conversation = await chatStore.findConversation(ctx.db, conversationId)
  if (!conversation || (await isAnalyzed(ctx.db, subject))) return
  const agent = await agentStore.findAgent(ctx.db, {
    organizationId: conversation.organizationId,
    id: conversation.agentId,
  })
  const transcript = await chatStore.listMessages(ctx.db, {
    conversationId,
    limit: TRANSCRIPT_ROWS,
    offset: 0,
  })
  const result = await analyzeTranscript(ctx, {
    subject,
    organizationId: conversation.organizationId,
    agent,
    transcript,
  })
  if ('skipped' in result) {
    ctx.logger.warn({ ...subject, reason: result.skipped }, 'conversation not analysed')
    return
  }
  const { analysis } = result
  if (!(await saveAnalysis(ctx.db, { subject, analysis })) || !agent) return
  await notifyAgent(ctx, agent, 'conversation.analyzed', {
    conversation_id: conversationId,
    agent_id: agent.id,
    ...eventData(analysis),
  })
}

/** Queues an analysis; the model call may take seconds and must survive a restart. */
export const queueAnalysis = (ctx: AppContext, subject: Subject) =>
  ctx.jobs
    .now(subject.kind === 'call' ? CALL_ANALYSIS_JOB : CHAT_ANALYSIS_JOB, {
      [subject.kind === 'call' ? 'callId' : 'conversationId']: subject.id,
    })
    .catch((error: unknown) =>
      ctx.logger.error({ err: error, ...subject }, 'could not queue the post-call analysis'),
    )

/**
 * The analysis jobs. A call's analysis is calls/' (it reads the call and its transcript), handed
 * in by jobs/handlers.ts, so analysis/ imports no call code.
 */
export const registerAnalysisJobs = (
  ctx: AppContext,
  { analyzeCall }: { analyzeCall: (ctx: AppContext, callId: string) => Promise<void> },
) => {
  ctx.jobs.define<{ conversationId: string }>(CHAT_ANALYSIS_JOB, ({ conversationId }) =>
    analyzeConversation(ctx, conversationId),
  )
  ctx.jobs.define<{ callId: string }>(CALL_ANALYSIS_JOB, ({ callId }) => analyzeCall(ctx, callId))
}
