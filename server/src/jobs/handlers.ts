import { registerAnalysisJobs } from '../analysis/jobs.ts'
import { registerBatchJobs } from '../batch/dialer/jobs.ts'
import { registerCallJobs } from '../calls/jobs.ts'
import { registerChatJobs } from '../chat/end.ts'
import type { AppContext } from '../context.ts'
import { registerExportJobs } from '../export/service.ts'
import { registerKnowledgeJobs } from '../knowledge/index.ts'
import { registerWebhookJobs } from '../webhooks/service.ts'

/** Every job type the workers run; each domain registers its own. */
export const registerJobHandlers = (ctx: AppContext) => {
  registerWebhookJobs(ctx)
  registerChatJobs(ctx)
  registerAnalysisJobs(ctx)
  registerCallJobs(ctx)
  registerBatchJobs(ctx)
  registerExportJobs(ctx)
  registerKnowledgeJobs(ctx)
}
