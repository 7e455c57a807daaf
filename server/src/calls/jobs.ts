import { getBalanceMicros } from '../billing/service.ts'
import type { AppContext } from '../context.ts'
import { priceCall } from './pricing.ts'
import { closeCall } from './service.ts'
import * as store from './store.ts'

export const CALL_SWEEP_JOB = 'calls.sweep'
export const CALL_CREDIT_JOB = 'calls.credit-check'
/** A room younger than this may not be listed yet; the sweeper leaves its call alone. */
const SWEEP_GRACE_MS = 30_000
const CALLS_PER_RUN = 500

/**
 * Closes active calls whose rooms LiveKit no longer has (a lost room_finished webhook). When
 * LiveKit cannot be asked, nothing is closed: an outage must not end calls that still run.
 */
export const sweepOrphanedCalls = async (ctx: AppContext) => {
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

const elapsedSeconds = (call: store.CallRow, now: number) =>
  Math.max(0, Math.ceil((now - call.startedAt.getTime()) / 1000))

/**
 * Re-checks credits while calls run. Calls are billed when they end, so an organization's
 * running calls are priced so far and subtracted; below the minimum balance its calls are
 * closed (reason `insufficient_credits`, billed up to now) and their rooms deleted through
 * LiveKit, which disconnects everyone.
 */
export const endCallsWithoutCredit = async (ctx: AppContext) => {
  const now = Date.now()
  const calls = await store.listActiveCalls(ctx.db, { startedBefore: new Date(now), limit: CALLS_PER_RUN })
  const byOrganization = new Map<string, store.CallRow[]>()
  for (const call of calls)
    byOrganization.set(call.organizationId, [...(byOrganization.get(call.organizationId) ?? []), call])
  for (const [organizationId, running] of byOrganization) {
    const accrued = running.reduce(
      (sum, call) => sum + priceCall(call.architecture, elapsedSeconds(call, now)),
      0,
    )
    const balance = await getBalanceMicros(ctx.db, organizationId)
    const left = balance - accrued
    if (left > 0 && left >= ctx.config.chatMinBalanceMicros) continue
    for (const call of running) {
      // Closed first so the final call.ended carries this reason, not the room_finished that follows.
      const closed = await closeCall(ctx, { roomName: call.roomName, reason: 'insufficient_credits' })
      if (!closed) continue
      await ctx.livekit?.deleteRoom(call.roomName).catch((error: unknown) => {
        ctx.logger.error(
          { err: error, callId: call.id },
          'could not end a call without credits through LiveKit',
        )
      })
    }
  }
}

export const registerCallJobs = (ctx: AppContext) => {
  ctx.jobs.define(CALL_SWEEP_JOB, () => sweepOrphanedCalls(ctx), { concurrency: 1 })
  ctx.jobs.define(CALL_CREDIT_JOB, () => endCallsWithoutCredit(ctx), { concurrency: 1 })
}

/** The two checks repeat every CALL_CHECK_INTERVAL_SECONDS, one record each for the deployment. */
export const scheduleCallJobs = async (ctx: AppContext) => {
  await ctx.jobs.every(ctx.config.callCheckIntervalMs, CALL_SWEEP_JOB)
  await ctx.jobs.every(ctx.config.callCheckIntervalMs, CALL_CREDIT_JOB)
}
