import * as agentStore from '../agents/index.ts'
import { analyzeTranscript, eventData, type Subject, saveAnalysis } from '../analysis/index.ts'
import type { AppContext } from '../context.ts'
import { notifyAgent } from '../webhooks/index.ts'
import * as callStore from './store.ts'

/**
 * A call's analysis (queued when a call of an agent that asks for it ends), then `call.analyzed`.
 * Always by a real model (the agent's, or a realtime agent's analysisModel): where none can run,
 * the call is marked skipped with the reason, and no event is sent.
 */
export const analyzeCall = async (ctx: AppContext, callId: string) => {
  const subject: Subject = { kind: 'call', id: callId }
  const call = await callStore.findCallById(ctx.db, callId)
  if (!call || (await callStore.isAnalysisSettled(ctx.db, callId))) return
  const agent = await agentStore.findAgent(ctx.db, { organizationId: call.organizationId, id: call.agentId })
  const transcript = await callStore.listTranscript(ctx.db, callId)
  if (transcript.length === 0) return // an unanswered or silent call has nothing to analyse
  const result = await analyzeTranscript(ctx, {
    subject,
    organizationId: call.organizationId,
    agent,
    transcript,
  })
  if ('skipped' in result) {
    ctx.logger.warn({ callId, reason: result.skipped }, 'call not analysed')
    await callStore.markAnalysisSkipped(ctx.db, { callId, reason: result.skipped })
    return
  }
  const { analysis } = result
  if (!(await saveAnalysis(ctx.db, { subject, analysis })) || !agent) return
  await notifyAgent(ctx, agent, 'call.analyzed', {
    call_id: callId,
    agent_id: agent.id,
    conversation_id: call.conversationId,
    batch_job_id: call.batchJobId,
    ...eventData(analysis),
  })
}
