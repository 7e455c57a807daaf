import * as agentStore from '../../agents/index.ts'
import { getBalanceMicros, heldMicros } from '../../billing/index.ts'
import { agentRuntimeConfig, estimateCallMicros, voiceRateFor } from '../../calls/index.ts'
import type { AppContext } from '../../context.ts'
import * as phoneNumberStore from '../../phone-numbers/index.ts'
import { sendBatchCompleted, sendBatchFailed } from '../service.ts'
import * as attemptStore from './attempt-store.ts'
import { chooseContacts } from './choose.ts'
import { type DialTarget, openDials, type TiedDial } from './dial-contact.ts'
import { skipDoNotCall } from './do-not-call.ts'
import * as store from './store.ts'

/** Due contacts read per free slot: room to skip those outside their window in one round. */
const SCAN_FACTOR = 4
/**
 * How long a worker reuses a job's number, agent and credit check between rounds. A round runs
 * after every finished call; three lookups each time would cost more than the claim itself, and
 * a deleted number or drained balance is noticed within this delay.
 */
const TARGET_TTL_MS = 1000

const CREDITS_RAN_OUT = 'Credits ran out: the balance is below the cost of one average call'

/** Per worker: the dial target of each job it dials, while fresh. */
export type TargetCache = Map<string, { target: DialTarget; expiresAt: number }>

/**
 * What the job dials with, or why it cannot dial at all: these do not heal by retrying a contact,
 * so the job fails with the reason (retry-failed resumes it once fixed).
 */
const findDialTarget = async (
  ctx: AppContext,
  job: store.DialerJob,
): Promise<DialTarget | { failure: string }> => {
  if (!ctx.livekit)
    return { failure: 'No media server is configured (LIVEKIT_URL), so no call can be placed' }
  const phoneNumber = await phoneNumberStore.findPhoneNumber(ctx.db, {
    organizationId: job.organizationId,
    id: job.phoneNumberId,
  })
  if (!phoneNumber) return { failure: 'The phone number of this job was deleted' }
  const agent = await agentStore.findAgent(ctx.db, { organizationId: job.organizationId, id: job.agentId })
  if (!agent || agent.agentArchitecture === 'text') return { failure: 'The agent of this job was deleted' }
  // An inactive agent is not live to the public (DESIGN §7): nobody is dialled for it until it is
  // activated again (then retry-failed resumes the job).
  if (!agent.active)
    return {
      failure: `The agent ${agent.name} is inactive (agent_inactive): activate it, then retry the job`,
    }
  // What replies and calls in flight hold is not there to spend (billing/holds.ts).
  const [balance, held] = await Promise.all([
    getBalanceMicros(ctx.db, job.organizationId),
    heldMicros(ctx.db, job.organizationId),
  ])
  const microsPerMinute = await voiceRateFor(ctx, { agent, organizationId: job.organizationId })
  if (balance - held < estimateCallMicros(microsPerMinute)) return { failure: CREDITS_RAN_OUT }
  return { job, agent, runtimeConfig: await agentRuntimeConfig(ctx, agent, job.organizationId), phoneNumber }
}

export type Launch = (dial: TiedDial) => void

/**
 * One round for one job: claim what the free slots allow, open their calls and tie them, then
 * hand each dial to `launch`. With nothing to claim, a drained job (nothing in flight, nothing
 * waiting) completes; a pending one starts. Answers whether it changed anything others should
 * hear about.
 */
export const runClaimRound = async (
  ctx: AppContext,
  { jobId, launch, targets }: { jobId: string; launch: Launch; targets: TargetCache },
) => {
  const now = ctx.clock.now()
  // One transaction reads the job under its lock and claims when it is running (none when paused).
  const { job, claimed, isDrained } = await store.claimRound(ctx.db, {
    jobId,
    now,
    scanFactor: SCAN_FACTOR,
    instanceId: ctx.instanceId,
    choose: (candidates, freeSlots, { callingWindow, timezone }) =>
      chooseContacts({ candidates, freeSlots, window: callingWindow, jobZone: timezone, now }),
  })
  // Announced at its create: start it here rather than wait for the queue to run batch.start.
  if (job?.status === 'pending') return store.startJob(ctx.db, { id: jobId, now })
  if (!job || (job.status !== 'running' && job.status !== 'paused')) return false
  if (claimed.length === 0) {
    const completed =
      (job.status === 'paused' || isDrained) && (await store.completeJobIfDone(ctx.db, { jobId, now }))
    if (completed) await sendBatchCompleted(ctx, jobId)
    return completed
  }

  const cached = targets.get(jobId)
  const target =
    cached && cached.expiresAt > performance.now() ? cached.target : await findDialTarget(ctx, job)
  if ('failure' in target) {
    targets.delete(jobId)
    for (const contact of claimed) await attemptStore.releaseUndialledClaim(ctx.db, { ...contact, now })
    if (await store.failJob(ctx.db, { jobId, reason: target.failure, now })) await sendBatchFailed(ctx, jobId)
    ctx.logger.warn({ batchJobId: jobId, reason: target.failure }, 'batch job failed')
    return true
  }
  if (target !== cached?.target) targets.set(jobId, { target, expiresAt: performance.now() + TARGET_TTL_MS })
  const toDial = await skipDoNotCall(ctx, { organizationId: job.organizationId, claimed })
  if (toDial.length === 0) return true
  const { dials, creditsRanOut } = await openDials(ctx, { target: { ...target, job }, contacts: toDial })
  for (const dial of dials) launch(dial)
  if (creditsRanOut) {
    targets.delete(jobId)
    if (await store.failJob(ctx.db, { jobId, reason: CREDITS_RAN_OUT, now }))
      await sendBatchFailed(ctx, jobId)
    ctx.logger.warn({ batchJobId: jobId, reason: CREDITS_RAN_OUT }, 'batch job failed')
  }
  return true
}
