import type { CallTransfer, CallTransferRequest, TransferDestination } from '@parley/shared'
import type { AgentRow } from '../agents/index.ts'
import * as agentStore from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { monotonicUlids } from '../crypto/ids.ts'
import { AppError } from '../http/app-error.ts'
import { findTransferLine } from '../phone-numbers/index.ts'
import { SipDialError } from '../providers/livekit.ts'
import { notifyAgent } from '../webhooks/index.ts'
import { closeCall } from './close.ts'
import { sipIdentityOf } from './dispatch-metadata.ts'
import { recordCallEvent } from './events.ts'
import { REQUESTED_ROOM_PREFIX } from './requested-call.ts'
import { deleteCallRoom } from './rooms.ts'
import type { CallRow } from './service.ts'
import * as callStore from './store.ts'
import * as store from './transfer-store.ts'

/**
 * Transfers to a person (the agent's transfer_call, POST /v1/calls/{callId}/transfer with the
 * worker token). The LiveKit calls are made here, not in the worker: the server records each
 * transfer and its result on the call, sends `call.transferred`, and keeps the LiveKit and trunk
 * choices in one place.
 *
 * - Cold, phone caller: SIP REFER of the caller's participant (`transferSipParticipant`); once the
 *   far end accepts, the caller has left Parley: the call closes (`transferred`) and its room goes.
 * - Cold, web caller: the person is dialled into the call's room (CreateSIPParticipant on the
 *   organization's transfer line) and, once answered, the worker's agent leaves; the visitor and
 *   the person talk on. Parley's minutes stop with the agent (presence.ts bills only while the
 *   agent is in the room).
 * - Warm: the worker dials and briefs the person itself (the framework's WarmTransferTask, with its
 *   own LiveKit credentials); this answers the line to dial on and records the result it reports.
 */

const newId = monotonicUlids()

/** How long a transfer rings before it counts as not answered (LiveKit takes whole seconds). */
export const TRANSFER_RINGING_TIMEOUT_SECONDS = 30

const findCall = async (ctx: AppContext, callId: string) => {
  const call = await callStore.findCallById(ctx.db, callId)
  if (!call) throw AppError.notFound('call')
  return call
}

const callEnded = () => AppError.conflict('The call has ended', 'call_ended')

/** The live agent (after a handoff, the one answering now), whose destinations the call may use. */
const findLiveAgent = async (ctx: AppContext, call: CallRow) => {
  const agent = await agentStore.findServingAgent(ctx.db, {
    organizationId: call.organizationId,
    id: call.liveAgentId ?? call.agentId,
  })
  if (!agent) throw AppError.notFound('agent')
  return agent
}

const destinationOf = (agent: AgentRow, name: string): TransferDestination => {
  const wanted = name.trim().toLowerCase()
  const found = agent.transferDestinations.find((item) => item.name.toLowerCase() === wanted)
  if (!found)
    throw AppError.badRequest(
      `destination: ${name} is not one of the transferDestinations of ${agent.name}`,
      'invalid_transfer_destination',
    )
  return found
}

/** SIP REFER takes a URI: a number as tel:, a SIP URI as written. */
const referTarget = (destination: string) =>
  destination.startsWith('+') ? `tel:${destination}` : destination

/**
 * The caller's SIP participant, when the caller is on the phone: an inbound caller's identity (as
 * LiveKit named it), a dialled contact's, or a call on request's (the dialer gave LiveKit both,
 * the latter from the call id). Null for a web visitor.
 */
const sipCallerIdentityOf = (call: CallRow) => {
  if (call.direction === 'web') return null
  if (call.sipIdentity) return call.sipIdentity
  if (call.batchContactId) return sipIdentityOf(call.batchContactId)
  return call.roomName.startsWith(REQUESTED_ROOM_PREFIX) ? sipIdentityOf(call.id) : null
}

const requireLiveKit = (ctx: AppContext) => {
  if (!ctx.livekit) throw AppError.unavailable('LiveKit is not configured')
  return ctx.livekit
}

const requireLine = async (ctx: AppContext, call: CallRow, agent: AgentRow) => {
  const line = await findTransferLine(ctx.db, { organizationId: call.organizationId, agentId: agent.id })
  if (!line)
    throw AppError.conflict(
      'The organization has no phone number to dial the transfer on: add one (POST /v1/phone-numbers)',
      'no_transfer_line',
    )
  return line
}

const sendTransferred = async (ctx: AppContext, call: CallRow, agent: AgentRow, transfer: CallTransfer) => {
  if (transfer.status === 'dialing') return
  try {
    await notifyAgent(ctx, agent, 'call.transferred', {
      call_id: call.id,
      transfer_id: transfer.id,
      agent_id: agent.id,
      agent_name: agent.name,
      direction: call.direction,
      destination_name: transfer.destinationName,
      destination: transfer.destination,
      mode: transfer.mode,
      method: transfer.method,
      result: transfer.status,
      sip_status: transfer.sipStatus,
      transferred_at: transfer.finishedAt ?? transfer.createdAt,
    })
  } catch (error) {
    // The transfer happened (or failed) either way; the log names it so the webhook can be redone.
    ctx.logger.error(
      { err: error, callId: call.id, transferId: transfer.id },
      'could not queue call.transferred',
    )
  }
}

/** The call's `transferred` event (GET /v1/calls/{id}/events): each transfer's result, once. */
const recordTransferEvent = (ctx: AppContext, transfer: CallTransfer, callId: string) =>
  recordCallEvent(ctx, {
    callId,
    type: 'transferred',
    data: {
      transferId: transfer.id,
      destinationName: transfer.destinationName,
      destination: transfer.destination,
      mode: transfer.mode,
      method: transfer.method,
      result: transfer.status,
      sipStatus: transfer.sipStatus,
    },
  })

/** A SIP failure as a transfer's result: busy or no answer is `no_answer`, anything else `failed`. */
const resultOfFailure = (error: unknown) => {
  const sip = error instanceof SipDialError ? error : null
  return {
    status:
      sip && (sip.outcome === 'busy' || sip.outcome === 'no_answer' || sip.outcome === 'rejected')
        ? ('no_answer' as const)
        : ('failed' as const),
    sipStatus: sip?.sipStatus ?? null,
  }
}

const coldTransfer = async (
  ctx: AppContext,
  { call, agent, destination }: { call: CallRow; agent: AgentRow; destination: TransferDestination },
) => {
  const livekit = requireLiveKit(ctx)
  const callerIdentity = sipCallerIdentityOf(call)
  const id = newId()
  const method = callerIdentity ? ('refer' as const) : ('dial' as const)
  const line = method === 'dial' ? await requireLine(ctx, call, agent) : null
  let outcome: { status: 'transferred' | 'no_answer' | 'failed'; sipStatus: number | null }
  try {
    if (callerIdentity) {
      await livekit.transferSip({
        roomName: call.roomName,
        identity: callerIdentity,
        transferTo: referTarget(destination.destination),
        ringingTimeoutSeconds: TRANSFER_RINGING_TIMEOUT_SECONDS,
      })
    } else if (line) {
      await livekit.dialSip({
        trunkId: line.sipTrunkId,
        number: destination.destination,
        roomName: call.roomName,
        identity: `transfer-${id}`,
        ringingTimeoutSeconds: TRANSFER_RINGING_TIMEOUT_SECONDS,
      })
    }
    outcome = { status: 'transferred', sipStatus: null }
  } catch (error) {
    ctx.logger.warn({ err: error, callId: call.id, transferId: id }, 'a cold transfer did not go through')
    outcome = resultOfFailure(error)
  }
  const transfer = await store.insertTransfer(ctx.db, {
    id,
    callId: call.id,
    organizationId: call.organizationId,
    agentId: agent.id,
    destinationName: destination.name,
    destination: destination.destination,
    mode: 'cold',
    method,
    ...outcome,
    finished: true,
  })
  // Before the close a REFER brings, so the stream reads `transferred` then `ended`.
  await recordTransferEvent(ctx, transfer, call.id)
  if (outcome.status === 'transferred' && method === 'refer') {
    // The carrier has the caller now: Parley's call is over.
    await closeCall(ctx, { roomName: call.roomName, reason: 'transferred' })
    await deleteCallRoom(ctx, { roomName: call.roomName, why: 'a call transferred by SIP REFER' })
  }
  return transfer
}

const startWarmTransfer = async (
  ctx: AppContext,
  { call, agent, destination }: { call: CallRow; agent: AgentRow; destination: TransferDestination },
) => {
  const line = await requireLine(ctx, call, agent)
  const transfer = await store.insertTransfer(ctx.db, {
    id: newId(),
    callId: call.id,
    organizationId: call.organizationId,
    agentId: agent.id,
    destinationName: destination.name,
    destination: destination.destination,
    mode: 'warm',
    method: 'dial',
    status: 'dialing',
    sipStatus: null,
    finished: false,
  })
  return {
    transfer,
    line: {
      sipTrunkId: line.sipTrunkId,
      fromNumber: line.number,
      to: destination.destination,
      ringingTimeoutSeconds: TRANSFER_RINGING_TIMEOUT_SECONDS,
    },
  }
}

/** POST /v1/calls/{callId}/transfer: start a transfer, or report how a warm one ended. */
export const transferCall = async (
  ctx: AppContext,
  { callId, body }: { callId: string; body: CallTransferRequest },
) => {
  const call = await findCall(ctx, callId)
  if (body.transferId !== undefined && body.result !== undefined) {
    const reported = await store.finishTransfer(ctx.db, {
      callId: call.id,
      id: body.transferId,
      status: body.result,
    })
    if (!reported) {
      const existing = await store.findTransfer(ctx.db, { callId: call.id, id: body.transferId })
      if (!existing) throw AppError.notFound('transfer')
      // Reported before: the same answer again, no second webhook.
      return { success: true as const, data: { transfer: existing, line: null } }
    }
    const agent = await agentStore.findServingAgent(ctx.db, {
      organizationId: call.organizationId,
      id: reported.agentId,
    })
    await recordTransferEvent(ctx, reported, call.id)
    if (agent) await sendTransferred(ctx, call, agent, reported)
    return { success: true as const, data: { transfer: reported, line: null } }
  }
  if (call.status !== 'active') throw callEnded()
  const agent = await findLiveAgent(ctx, call)
  const destination = destinationOf(agent, body.destination)
  if (destination.mode === 'warm')
    return { success: true as const, data: await startWarmTransfer(ctx, { call, agent, destination }) }
  const transfer = await coldTransfer(ctx, { call, agent, destination })
  await sendTransferred(ctx, call, agent, transfer)
  return { success: true as const, data: { transfer, line: null } }
}

/** A call's transfers, oldest first (the call record's detail). */
export const listCallTransfers = (ctx: AppContext, callId: string) => store.listTransfers(ctx.db, callId)
