import { ulid } from 'ulid'
import * as agentStore from '../agents/store.ts'
import { debitUsage, toUsd } from '../billing/service.ts'
import type { AppContext } from '../context.ts'
import type { Executor } from '../db/index.ts'
import { enqueueWebhook } from '../webhooks/service.ts'
import { priceCall } from './pricing.ts'
import * as store from './store.ts'

export type { CallRow } from './store.ts'

export type OpenCallInput = Pick<
  store.NewCall,
  'organizationId' | 'agentId' | 'roomName' | 'architecture' | 'direction'
> &
  Partial<Pick<store.NewCall, 'userId' | 'keyId' | 'phoneNumber' | 'batchJobId' | 'batchContactId'>>

export type CallClosedListener = (call: store.CallRow) => void | Promise<void>

// Per server instance (tests run several in one process); the batch dialer frees its slots here.
const listeners = new WeakMap<AppContext, Set<CallClosedListener>>()

/**
 * Calls `listener` after every call this instance closes. In-process only: a close on another
 * instance is not seen, so users must also reconcile from the database. Returns an unsubscribe.
 */
export const onCallClosed = (ctx: AppContext, listener: CallClosedListener) => {
  const set = listeners.get(ctx) ?? new Set<CallClosedListener>()
  listeners.set(ctx, set)
  set.add(listener)
  return () => void set.delete(listener)
}

/** Records a call as active from now; the room name is its identity for LiveKit's webhooks. */
export const openCall = (ctx: AppContext, input: OpenCallInput) =>
  store.insertCall(ctx.db, {
    id: ulid(),
    userId: null,
    keyId: null,
    phoneNumber: null,
    batchJobId: null,
    batchContactId: null,
    ...input,
  })

/**
 * Debits the call's minutes inside the closing transaction, as its last statement before the
 * commit: the debit locks the organization's balance row, which every call of the organization
 * closing at the same time needs too, so nothing else runs while it is held. The call's cost is
 * written just before it, and corrected only when the balance could not cover it: the call already
 * happened, so the rest of the balance is taken then (never below zero). A `failed` call
 * (unanswered dial, failed dispatch) and a web session nobody joined cost nothing.
 */
const chargeCall = async (ctx: AppContext, tx: Executor, call: store.CallRow) => {
  const cost = priceOf(call)
  if (cost <= 0) return 0 // a call row starts at cost 0 and is closed once
  await store.setCallCost(tx, { id: call.id, costMicros: cost })
  const debited = await debitUsage(
    { db: ctx.db, executor: tx },
    {
      organizationId: call.organizationId,
      amountMicros: cost,
      reason: call.direction === 'outbound' ? 'Outbound call' : 'Voice session',
      reference: call.id,
    },
  )
  if (debited !== cost) await store.setCallCost(tx, { id: call.id, costMicros: debited })
  return debited
}

const priceOf = (call: store.CallRow) => {
  if (call.status === 'failed') return 0
  if (call.direction === 'web' && !store.hasConnected(call)) return 0
  return Math.max(0, priceCall(call.architecture, call.durationSeconds ?? 0))
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

const sendCallEnded = async (ctx: AppContext, call: store.CallRow) => {
  try {
    const agent = await agentStore.findAgent(ctx.db, {
      organizationId: call.organizationId,
      id: call.agentId,
    })
    if (!agent?.webhookUrl) return
    await enqueueWebhook(ctx, {
      organizationId: call.organizationId,
      agentId: agent.id,
      url: agent.webhookUrl,
      event: 'call.ended',
      data: {
        call_id: call.id,
        agent_id: call.agentId,
        agent_name: agent.name,
        room_name: call.roomName,
        direction: call.direction,
        status: call.status,
        reason: call.endReason,
        started_at: call.startedAt.toISOString(),
        ended_at: call.endedAt?.toISOString() ?? null,
        duration: call.durationSeconds ?? 0,
        total_cost: toUsd(call.costMicros),
        phone_number: call.phoneNumber,
        batch_job_id: call.batchJobId,
        batch_contact_id: call.batchContactId,
      },
    })
  } catch (error) {
    // The call is closed and billed either way (callers go on to end its room); the log names
    // it so the webhook can be redone.
    ctx.logger.error({ err: error, callId: call.id }, 'could not queue the call.ended webhook')
  }
}

/**
 * The person joined (LiveKit participant_joined, or the batch dialer's answered dial): billing
 * starts now. Only the first join counts. Returns whether this call moved the clock.
 */
export const markCallConnected = (ctx: AppContext, roomName: string) =>
  store.markCallConnected(ctx.db, roomName)

/**
 * Closes the active call of a room: duration fixed, minutes billed at the architecture's price
 * and recorded on the call, all in one transaction whose conditional UPDATE lets exactly one of
 * any number of concurrent closers win. Then listeners run and `call.ended` is queued. Returns
 * null when the call was not active (unknown room, or already closed).
 */
export const closeCall = async (
  ctx: AppContext,
  { roomName, reason, status = 'ended' }: { roomName: string; reason: string; status?: 'ended' | 'failed' },
): Promise<store.CallRow | null> => {
  const closed = await ctx.db.transaction().execute(async (tx) => {
    const call = await store.markCallClosed(tx, { roomName, status, reason })
    if (!call) return null
    return { ...call, costMicros: await chargeCall(ctx, tx, call) }
  })
  if (!closed) return null
  await notifyClosed(ctx, closed)
  await sendCallEnded(ctx, closed)
  return closed
}
