/**
 * agent-tests/: an agent's test cases (a simulated visitor and expectations), their runs against
 * a version on the chat path's reply engine (a voice agent's by the voice worker, voice.ts), and
 * the publish gate. Other areas use it through this file.
 */
import { registerPublishCheck } from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { executeRun, RUN_JOB, SWEEP_JOB, sweepOrphanedRuns } from './run.ts'
import { checkTestsBeforePublish } from './service.ts'
import { sweepVoiceRuns } from './voice.ts'

export { registerAgentTestRoutes } from './routes.ts'

registerPublishCheck(checkTestsBeforePublish)

export const registerAgentTestJobs = (ctx: AppContext) => {
  ctx.jobs.define<{ runId: string }>(RUN_JOB, ({ runId }) => executeRun(ctx, runId), { concurrency: 2 })
  ctx.jobs.define(
    SWEEP_JOB,
    async () => {
      await sweepOrphanedRuns(ctx)
      await sweepVoiceRuns(ctx)
    },
    { concurrency: 1 },
  )
}

/**
 * The sweep of runs a dead instance left running: once at start and then every heartbeat (one
 * record for the deployment), so such a run ends within a few heartbeats of its instance's death.
 * Workers only (they run the jobs).
 */
export const scheduleAgentTestJobs = async (ctx: AppContext) => {
  await ctx.jobs.now(SWEEP_JOB, {})
  await ctx.jobs.every(Math.max(1000, ctx.config.instanceHeartbeatMs), SWEEP_JOB)
}
