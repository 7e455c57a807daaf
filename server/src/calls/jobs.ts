import { getBalanceMicros } from '../billing/index.ts'
import type { AppContext } from '../context.ts'
import { onKeyRevoked } from '../keys/index.ts'
import { CALL_END_RELEASE_JOB, releaseHeldCallEnd, releaseOverdueCallEnds } from './close.ts'
import { rememberPhoneCallers } from './inbound-call.ts'
import { costUpTo } from './pricing.ts'
import { deleteCallRoom, endCallsOfKey } from './rooms.ts'
import { closeCall } from './service.ts'
import * as store from './store.ts'

export const CALL_SWEEP_JOB = 'calls.sweep'
export const CALL_CREDIT_JOB = 'calls.credit-check'
export const CALL_AGENT_JOB = 'calls.agent-check'
/** A room younger than this may not be listed yet; the sweeper leaves its call alone. */
const SWEEP_GRACE_MS = 30_000
const CALLS_PER_RUN = 500

/**
 * Closes active calls whose rooms LiveKit no longer has (a lost room_finished webhook). When
 * LiveKit cannot be asked, nothing is closed: an outage must not end calls that still run.
 */
export const sweepOrphanedCalls = async (ctx: AppContext) => {
  // A held `ended` whose release job was lost goes out here (close.ts).
  await releaseOverdueCallEnds(ctx, CALLS_PER_RUN)
  if (!ctx.livekit) return
  const calls = await store.listActiveCalls(ctx.db, {
    startedBefore: new Date(Date.now() - SWEEP_GRACE_MS),
    limit: CALLS_PER_RUN,
  })
  if (calls.length === 0) return
  let existing: Set<string>
  try {
    existing = new Set(await ctx.livekit.listRoomNames(calls.map((call) => call.roomName)))
  } catch (error) {
    ctx.logger.warn({ err: error }, 'call sweep skipped: LiveKit did not list rooms')
    return
  }
  for (const call of calls)
    if (!existing.has(call.roomName))
      await closeCall(ctx, { roomName: call.roomName, reason: 'room_vanished' })
}

/**
 * Re-checks credits while calls run. Calls are billed when they end, so an organization's
 * running calls are priced so far and subtracted; below the minimum balance its calls are
 * closed (reason `insufficient_credits`, billed up to now) and their rooms deleted through
 * LiveKit, which disconnects everyone.
 */
export const endCallsWithoutCredit = async (ctx: AppContext) => {
  const now = new Date()
  const calls = await store.listActiveCalls(ctx.db, { startedBefore: now, limit: CALLS_PER_RUN })
  const byOrganization = new Map<string, store.CallRow[]>()
  for (const call of calls)
    byOrganization.set(call.organizationId, [...(byOrganization.get(call.organizationId) ?? []), call])
  for (const [organizationId, running] of byOrganization) {
    const accrued = running.reduce((sum, call) => sum + costUpTo(call, now), 0)
    const balance = await getBalanceMicros(ctx.db, organizationId)
    const left = balance - accrued
    if (left > 0 && left >= ctx.config.chatMinBalanceMicros) continue
    for (const call of running) {
      // Closed first so the final call.ended carries this reason, not the room_finished that follows.
      const closed = await closeCall(ctx, { roomName: call.roomName, reason: 'insufficient_credits' })
      if (closed) await deleteCallRoom(ctx, { roomName: call.roomName, why: 'a call without credits' })
    }
  }
}

/**
 * Nobody pays for silence: a call whose dispatch no agent worker took within
 * AGENT_JOIN_TIMEOUT_SECONDS (no setup request, no agent participant) ends `agent_unavailable`,
 * failed and unbilled, and its room goes (which hangs up a ringing or answered callee; a batch
 * contact is retried). A sweep of the database, so it survives restarts and any number of instances.
 */
export const endCallsWithoutAgent = async (ctx: AppContext) => {
  const waiting = await store.listCallsAwaitingAgent(ctx.db, {
    seconds: ctx.config.agentJoinTimeoutSeconds,
    limit: CALLS_PER_RUN,
  })
  if (waiting.length === 0) return
  // Closed together: one transaction for all of them.
  const closed = await Promise.all(
    waiting.map(({ roomName }) =>
      closeCall(ctx, { roomName, reason: 'agent_unavailable', status: 'failed' }),
    ),
  )
  const ended = closed.filter((call) => call !== null)
  if (ended.length === 0) return
  ctx.logger.warn(
    { callIds: ended.map((call) => call.id), agentName: ctx.config.livekit?.agentName },
    `no agent worker took ${ended.length} call(s) within ${ctx.config.agentJoinTimeoutSeconds} s: is a worker running under LIVEKIT_AGENT_NAME?`,
  )
  await Promise.all(
    ended.map((call) => deleteCallRoom(ctx, { roomName: call.roomName, why: 'a call no agent took' })),
  )
}

export const registerCallJobs = (ctx: AppContext) => {
  ctx.jobs.define(CALL_SWEEP_JOB, () => sweepOrphanedCalls(ctx), { concurrency: 1 })
  ctx.jobs.define(CALL_CREDIT_JOB, () => endCallsWithoutCredit(ctx), { concurrency: 1 })
  ctx.jobs.define(CALL_AGENT_JOB, () => endCallsWithoutAgent(ctx), { concurrency: 1 })
  ctx.jobs.define(CALL_END_RELEASE_JOB, async (data: { callId?: unknown }) => {
    if (typeof data?.callId === 'string') await releaseHeldCallEnd(ctx, data.callId)
  })
  // A revoked key's live calls end with it (keys/ tells; it imports no call code).
  onKeyRevoked(ctx, (keyId) => endCallsOfKey(ctx, keyId))
  rememberPhoneCallers(ctx)
}

/**
 * The sweep and the credit check repeat every CALL_CHECK_INTERVAL_SECONDS, the agent check five
 * times per AGENT_JOIN_TIMEOUT_SECONDS (a call waits at most a fifth longer than the bound): one
 * record each for the deployment.
 */
export const scheduleCallJobs = async (ctx: AppContext) => {
  await ctx.jobs.every(ctx.config.callCheckIntervalMs, CALL_SWEEP_JOB)
  await ctx.jobs.every(ctx.config.callCheckIntervalMs, CALL_CREDIT_JOB)
  await ctx.jobs.every(Math.max(1000, (ctx.config.agentJoinTimeoutSeconds * 1000) / 5), CALL_AGENT_JOB)
}
