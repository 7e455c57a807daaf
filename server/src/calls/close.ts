import type { AmdVerdict, CallOutcome } from '@parley/shared'
import * as agentStore from '../agents/index.ts'
import { queueAnalysis } from '../analysis/index.ts'
import { debitUsages, releaseHoldsOf, toUsd } from '../billing/index.ts'
import type { AppContext } from '../context.ts'
import type { Executor } from '../db/index.ts'
import { createWriteBatcher } from '../db/write-batcher.ts'
import { isListed } from '../do-not-call/index.ts'
import { notifyAgent, type WebhookSubscriber } from '../webhooks/index.ts'
import { announceCallEvents, endedEvents, insertCallEvents } from './events.ts'
import { type CloseDetails, outcomeOfClose, refinableReasons } from './outcome.ts'
import { costUpTo } from './pricing.ts'
import * as store from './store.ts'

export type CallClosedListener = (call: store.CallRow) => void | Promise<void>

/**
 * Work of another domain done inside the transaction that closes calls (the batch dialer
 * completes the contacts of answered calls there), so it commits with the close or not at all.
 * It runs before the billing (the calls' costs are not set yet) and may answer a function to run
 * after the commit.
 */
export type CallsClosingStep = (
  tx: Executor,
  calls: store.CallRow[],
) => Promise<(() => Promise<void>) | undefined>

/**
 * Work of another domain done inside the transaction that refines a closed call's outcome (the
 * batch dialer re-settles the contact of a call that turned out to be a voicemail).
 */
export type CallRefiningStep = (
  tx: Executor,
  call: store.CallRow,
) => Promise<(() => Promise<void>) | undefined>

// Per server instance (tests run several in one process).
const listeners = new WeakMap<AppContext, Set<CallClosedListener>>()
const closingSteps = new WeakMap<AppContext, Set<CallsClosingStep>>()
const refiningSteps = new WeakMap<AppContext, Set<CallRefiningStep>>()

const subscribe = <T>(registry: WeakMap<AppContext, Set<T>>, ctx: AppContext, entry: T) => {
  const set = registry.get(ctx) ?? new Set<T>()
  registry.set(ctx, set)
  set.add(entry)
  return () => void set.delete(entry)
}

/**
 * Calls `listener` after every call this instance closes. In-process only: a close on another
 * instance is not seen, so users must also reconcile from the database. Returns an unsubscribe.
 */
export const onCallClosed = (ctx: AppContext, listener: CallClosedListener) =>
  subscribe(listeners, ctx, listener)

/** Runs `step` inside every transaction of this instance that closes calls. Returns an unsubscribe. */
export const onCallsClosing = (ctx: AppContext, step: CallsClosingStep) => subscribe(closingSteps, ctx, step)

/** Runs `step` inside every transaction of this instance that refines a closed call's outcome. */
export const onCallRefining = (ctx: AppContext, step: CallRefiningStep) => subscribe(refiningSteps, ctx, step)

/** The job that sends a held `ended` when the worker's end did not come in time. */
export const CALL_END_RELEASE_JOB = 'calls.release-end'

/**
 * The worker's end came after a webhook closed the call (the machine hung up while the agent spoke,
 * say). With a decisive reason (a voicemail, a phone menu, an opt-out: `refine`) the outcome
 * becomes the worker's, with its verdict, and other domains re-settle; either way the held `ended`
 * event and `call.ended` go out now, once, with the final outcome, in the same transaction as
 * the refinement. Answers the call refined, or null.
 */
export const settleLateWorkerEnd = async (
  ctx: AppContext,
  {
    callId,
    refine,
  }: { callId: string; refine: { outcome: CallOutcome; amdVerdict: AmdVerdict | null } | null },
) => {
  const { refined, released, after } = await ctx.db.transaction().execute(async (tx) => {
    const then: Array<() => Promise<void>> = []
    const call = refine
      ? await store.refineClosedOutcome(tx, {
          id: callId,
          outcome: refine.outcome,
          amdVerdict: refine.amdVerdict,
          refinable: refinableReasons,
        })
      : undefined
    if (call)
      for (const step of refiningSteps.get(ctx) ?? []) {
        const next = await step(tx, call)
        if (next) then.push(next)
      }
    return { refined: call ?? null, released: await releaseEnd(tx, callId), after: then }
  })
  for (const next of after)
    await next().catch((error: unknown) =>
      ctx.logger.error({ err: error, callId }, 'a call-refining step failed'),
    )
  if (released) await announceEnd(ctx, released)
  return refined
}

/** Ends a held call's wait (once) and writes its `ended` event in the caller's transaction. */
const releaseEnd = async (tx: Executor, callId: string) => {
  const released = await store.releaseHeldEnd(tx, callId)
  if (released) await insertCallEvents(tx, endedEvents([released]))
  return released ?? null
}

/** After the commit that wrote a held call's `ended`: its streams hear it, `call.ended` goes. */
const announceEnd = async (ctx: AppContext, call: store.CallRow) => {
  await announceCallEvents(ctx, [call.id])
  await sendCallsEnded(ctx, [call])
}

/**
 * The grace period passed (CALL_END_RELEASE_JOB) without the worker's end: the held `ended` and
 * `call.ended` go out with the outcome the close gave. Nothing when they went already.
 */
export const releaseHeldCallEnd = async (ctx: AppContext, callId: string) => {
  const released = await ctx.db.transaction().execute((tx) => releaseEnd(tx, callId))
  if (released) await announceEnd(ctx, released)
  return released
}

/** Held ends whose release job never ran (a lost job): the sweep sends them. */
export const releaseOverdueCallEnds = async (ctx: AppContext, limit: number) => {
  for (const { id } of await store.listOverdueHeldEnds(ctx.db, limit)) await releaseHeldCallEnd(ctx, id)
}

/**
 * The calls of a close whose `ended` waits for the worker: closed by a webhook that only knows the
 * room emptied (`completed`), on a phone call an agent worker took, where the worker may yet say
 * more: an outbound call (answering-machine detection) or an inbound caller now on the
 * do-not-call list (opt_out). Web calls and every other close send at once.
 */
const endsToHold = async (ctx: AppContext, tx: Executor, calls: store.CallRow[]) => {
  if (ctx.config.callEndGraceSeconds <= 0) return new Set<string>()
  const held = new Set<string>()
  for (const call of calls) {
    const waits =
      call.status === 'ended' &&
      call.outcome === 'completed' &&
      call.agentTakenAt !== null &&
      (refinableReasons as readonly string[]).includes(call.endReason ?? '')
    if (!waits) continue
    if (call.direction === 'outbound') held.add(call.id)
    else if (
      call.direction === 'inbound' &&
      call.phoneNumber &&
      (await isListed(tx, { organizationId: call.organizationId, phoneNumber: call.phoneNumber }))
    )
      held.add(call.id)
  }
  return held
}

/** Schedules the release of held ends; a job that cannot be scheduled releases at once. */
const scheduleReleases = async (ctx: AppContext, callIds: string[]) => {
  const when = new Date(Date.now() + ctx.config.callEndGraceSeconds * 1000)
  for (const callId of callIds) {
    try {
      await ctx.jobs.schedule(when, CALL_END_RELEASE_JOB, { callId })
    } catch (error) {
      ctx.logger.error({ err: error, callId }, 'could not schedule a held call end; sending it now')
      await releaseHeldCallEnd(ctx, callId)
    }
  }
}

/** A failed call (unanswered dial, failed dispatch, no agent) costs nothing; others their billed time. */
const priceOf = (call: store.CallRow) =>
  call.status === 'failed' || call.endedAt === null ? 0 : costUpTo(call, call.endedAt)

/**
 * Bills the calls' minutes inside the closing transaction, the debit as its last statement before
 * the commit: the debit locks the organizations' balance rows, which every call of an organization
 * closing at the same time needs too, so nothing else runs while they are held. Each call's cost
 * is written just before it. The call already happened, so its whole cost is charged even when
 * the balance cannot cover it (the balance then goes below zero: billing/service.ts). A `failed` call
 * (unanswered dial, failed dispatch, no agent) and time without both the person and the agent in
 * the room cost nothing. Answers the calls with their costs.
 */
const chargeCalls = async (ctx: AppContext, tx: Executor, calls: store.CallRow[]) => {
  const charged = calls.flatMap((call) => {
    const price = priceOf(call)
    return price > 0 ? [{ call, price }] : [] // a call row starts at cost 0 and is closed once
  })
  // The real cost settles what the calls reserved: the holds go in the same transaction.
  await releaseHoldsOf(
    tx,
    calls.map((call) => call.id),
  )
  await store.setCallCosts(
    tx,
    charged.map(({ call, price }) => ({ id: call.id, costMicros: price })),
  )
  const taken = await debitUsages(
    { db: ctx.db, executor: tx, logger: ctx.logger },
    charged.map(({ call, price }) => ({
      organizationId: call.organizationId,
      amountMicros: price,
      reason: call.direction === 'outbound' ? 'Outbound call' : 'Voice session',
      reference: call.id,
    })),
  )
  const costs = new Map(charged.map(({ call }, index) => [call.id, taken[index] ?? 0]))
  const uncovered = charged.filter(({ call, price }) => costs.get(call.id) !== price)
  await store.setCallCosts(
    tx,
    uncovered.map(({ call }) => ({ id: call.id, costMicros: costs.get(call.id) ?? 0 })),
  )
  return calls.map((call) => ({ ...call, costMicros: costs.get(call.id) ?? 0 }))
}

const notifyClosed = async (ctx: AppContext, call: store.CallRow) => {
  for (const listener of listeners.get(ctx) ?? []) {
    try {
      await listener(call)
    } catch (error) {
      ctx.logger.error({ err: error, callId: call.id }, 'a call-closed listener failed')
    }
  }
}

/** Queues `call.ended` for the closed calls whose agents have a webhook (one read of their agents). */
const sendCallsEnded = async (ctx: AppContext, calls: store.CallRow[]) => {
  const organizationIds = [...new Set(calls.map((call) => call.organizationId))]
  for (const organizationId of organizationIds) {
    const ofOrganization = calls.filter((call) => call.organizationId === organizationId)
    try {
      const agents = await agentStore.findAgentsByIds(ctx.db, {
        organizationId,
        ids: [...new Set(ofOrganization.map((call) => call.agentId))],
      })
      for (const call of ofOrganization) {
        const agent = agents.find((candidate) => candidate.id === call.agentId)
        if (!agent) continue
        await sendCallEnded(ctx, call, agent)
        if (agent.postCallAnalysis && call.status === 'ended')
          await queueAnalysis(ctx, { kind: 'call', id: call.id })
      }
    } catch (error) {
      // The calls are closed and billed either way (callers go on to end their rooms); the log
      // names them so the webhooks can be redone.
      ctx.logger.error(
        { err: error, callIds: ofOrganization.map((call) => call.id) },
        'could not queue the call.ended webhook',
      )
    }
  }
}

const sendCallEnded = (ctx: AppContext, call: store.CallRow, agent: WebhookSubscriber & { name: string }) =>
  notifyAgent(ctx, agent, 'call.ended', {
    call_id: call.id,
    agent_id: call.agentId,
    agent_name: agent.name,
    room_name: call.roomName,
    direction: call.direction,
    status: call.status,
    reason: call.endReason,
    outcome: call.outcome,
    sip_status: call.sipStatus,
    amd_verdict: call.amdVerdict,
    started_at: call.startedAt.toISOString(),
    ended_at: call.endedAt?.toISOString() ?? null,
    duration: call.durationSeconds ?? 0,
    total_cost: toUsd(call.costMicros),
    phone_number: call.phoneNumber,
    batch_job_id: call.batchJobId,
    batch_contact_id: call.batchContactId,
  })

/**
 * Closes many calls in one transaction: the conditional UPDATE that closes them (exactly one
 * closer wins each call), the closing steps of other domains, and their billing. Then listeners
 * run and `call.ended` is queued. A close that may yet be refined by the call's worker (endsToHold)
 * writes no `ended` event and queues no `call.ended`: both wait for the worker's end
 * (settleLateWorkerEnd) or the grace period's release job, whichever comes first, and go out once.
 * Answers, per request, the call it closed or null.
 */
const closeCalls = async (ctx: AppContext, requests: readonly store.CloseRequest[]) => {
  const { closed, held, afterCommit } = await ctx.db.transaction().execute(async (tx) => {
    const marked = await store.markCallsClosed(tx, [...requests])
    if (marked.length === 0) return { closed: [], held: new Set<string>(), afterCommit: [] }
    const holding = await endsToHold(ctx, tx, marked)
    await store.holdCallEnds(tx, { ids: [...holding], seconds: ctx.config.callEndGraceSeconds })
    await insertCallEvents(tx, endedEvents(marked.filter((call) => !holding.has(call.id))))
    const after: Array<() => Promise<void>> = [
      () =>
        announceCallEvents(
          ctx,
          marked.map((call) => call.id),
        ),
    ]
    for (const step of closingSteps.get(ctx) ?? []) {
      const then = await step(tx, marked)
      if (then) after.push(then)
    }
    return { closed: await chargeCalls(ctx, tx, marked), held: holding, afterCommit: after }
  })
  for (const then of afterCommit) {
    await then().catch((error: unknown) => ctx.logger.error({ err: error }, 'a call-closing step failed'))
  }
  for (const call of closed) await notifyClosed(ctx, call)
  await sendCallsEnded(
    ctx,
    closed.filter((call) => !held.has(call.id)),
  )
  await scheduleReleases(ctx, [...held])
  const byRoom = new Map(closed.map((call) => [call.roomName, call]))
  return requests.map(({ roomName }) => {
    const call = byRoom.get(roomName) ?? null
    byRoom.delete(roomName) // a room asked twice in one batch: the first asker closed it
    return call
  })
}

const closers = new WeakMap<AppContext, (request: store.CloseRequest) => Promise<store.CallRow | null>>()

/**
 * Closes the active call of a room: duration fixed, minutes billed at the architecture's price
 * and recorded on the call, all in one transaction whose conditional UPDATE lets exactly one of
 * any number of concurrent closers win. Then listeners run and `call.ended` is queued. Returns
 * null when the call was not active (unknown room, or already closed). Closes requested together
 * (the instant hang-ups of many batch calls) share one transaction.
 */
export const closeCall = (
  ctx: AppContext,
  {
    roomName,
    reason,
    status = 'ended',
    sipStatus = null,
    amdVerdict = null,
  }: { roomName: string; reason: string; status?: 'ended' | 'failed' } & CloseDetails,
): Promise<store.CallRow | null> => {
  let close = closers.get(ctx)
  if (!close) {
    close = createWriteBatcher((requests: readonly store.CloseRequest[]) => closeCalls(ctx, requests))
    closers.set(ctx, close)
  }
  return close({
    roomName,
    reason,
    status,
    outcome: outcomeOfClose({ reason, status }),
    sipStatus,
    amdVerdict,
  })
}
