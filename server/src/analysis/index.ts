/** analysis/: other areas use it through this file. */
export { queueAnalysis, registerAnalysisJobs } from './jobs.ts'
export { presentAnalysis } from './store.ts'
