/**
 * agent-tests/: an agent's test cases (a simulated visitor and expectations), their runs against
 * a version on the chat path's reply engine, and the publish gate. Other areas use it through
 * this file.
 */
import { registerPublishCheck } from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { executeRun, RUN_JOB } from './run.ts'
import { checkTestsBeforePublish } from './service.ts'

export { registerAgentTestRoutes } from './routes.ts'

registerPublishCheck(checkTestsBeforePublish)

export const registerAgentTestJobs = (ctx: AppContext) => {
  ctx.jobs.define<{ runId: string }>(RUN_JOB, ({ runId }) => executeRun(ctx, runId), { concurrency: 2 })
}
