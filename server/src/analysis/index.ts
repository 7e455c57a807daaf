/** analysis/: other areas use it through this file. */
export { analyzeTranscript } from './analyze.ts'
export { eventData, queueAnalysis, registerAnalysisJobs } from './jobs.ts'
export { isAnalyzed, presentAnalysis, type Subject, saveAnalysis } from './store.ts'
