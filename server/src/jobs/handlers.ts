import { registerAgentTestJobs } from '../agent-tests/index.ts'
import { registerAnalysisJobs } from '../analysis/index.ts'
import { registerBatchJobs } from '../batch/index.ts'
import { analyzeCall, registerCallJobs } from '../calls/index.ts'
import { registerChatJobs } from '../chat/index.ts'
import type { AppContext } from '../context.ts'
import { registerExportJobs } from '../export/index.ts'
import { registerKnowledgeJobs } from '../knowledge/index.ts'
import { registerPhoneNumberJobs } from '../phone-numbers/index.ts'
import { registerWebhookJobs } from '../webhooks/index.ts'

/** Every job type the workers run; each domain registers its own. */
export const registerJobHandlers = (ctx: AppContext) => {
  registerWebhookJobs(ctx)
  registerChatJobs(ctx)
  registerAnalysisJobs(ctx, { analyzeCall })
  registerCallJobs(ctx)
  registerBatchJobs(ctx)
  registerExportJobs(ctx)
  registerKnowledgeJobs(ctx)
  registerAgentTestJobs(ctx)
  registerPhoneNumberJobs(ctx)
}
