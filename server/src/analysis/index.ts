/** analysis/: other areas use it through this file. */
import { registerConversationAnalysis } from '../chat/index.ts'
import { queueAnalysis } from './jobs.ts'

export { type AnalysisResult, analysisModelOf, analyzeTranscript } from './analyze.ts'
export { eventData, queueAnalysis, registerAnalysisJobs } from './jobs.ts'
export { isAnalyzed, presentAnalysis, type Subject, saveAnalysis } from './store.ts'

// chat/ queues a conversation's analysis at its end through this.
registerConversationAnalysis(async (ctx, id) => {
  await queueAnalysis(ctx, { kind: 'conversation', id })
})
