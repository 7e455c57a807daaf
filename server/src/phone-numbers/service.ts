import type { CreatePhoneNumber, ListPhoneNumbersQuery, PatchPhoneNumber, PhoneNumber } from '@parley/shared'
import type { AgentActor } from '../agents/index.ts'
import { findAgent } from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { newUlid } from '../crypto/ids.ts'
import { isUniqueViolation } from '../db/index.ts'
import { AppError } from '../http/app-error.ts'
import { pageWindow, paginationOf } from '../http/pagination.ts'
import { isValidE164 } from './e164.ts'
import { inboundOf, removeInbound, syncInbound } from './inbound.ts'
import * as store from './store.ts'

export const toPhoneNumber = (row: store.PhoneNumberRow): PhoneNumber => ({
  id: row.id,
  number: row.number,
  label: row.label,
  outboundAgentId: row.outboundAgentId,
  inboundAgentId: row.inboundAgentId,
  inbound: inboundOf(row),
  sipTrunkId: row.sipTrunkId,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
})

/** Numbers place calls that cost money: owners and admins manage them, every member reads them. */
const requireManager = (actor: AgentActor) => {
  if (actor.role !== 'owner' && actor.role !== 'admin')
    throw AppError.forbidden('Only owners and admins manage phone numbers')
}

const requireValidNumber = (number: string) => {
  if (!isValidE164(number))
    throw AppError.badRequest(`${number} is not a valid phone number`, 'invalid_phone_number')
}

/** The outbound agent must be a voice (pipeline or realtime) agent of the same organization. */
const requireOutboundAgent = async (ctx: AppContext, organizationId: string, agentId: string) => {
  const agent = await findAgent(ctx.db, { organizationId, id: agentId })
  if (!agent) throw AppError.notFound('outbound agent')
  if (agent.agentArchitecture === 'text')
    throw AppError.badRequest(
      'Text agents cannot place phone calls; choose a pipeline or realtime agent',
      'invalid_outbound_agent',
    )
  if (!agent.active) throw AppError.agentInactive()
}

/**
 * The inbound agent must be a voice agent of the same organization, active; LiveKit must be there
 * to answer; and no other organization's number may answer the same E.164 number (LiveKit routes
 * a called number to one trunk).
 */
const requireInbound = async (
  ctx: AppContext,
  { organizationId, agentId, number }: { organizationId: string; agentId: string; number: string },
) => {
  const agent = await findAgent(ctx.db, { organizationId, id: agentId })
  if (!agent) throw AppError.notFound('inbound agent')
  if (agent.agentArchitecture === 'text')
    throw AppError.badRequest(
      'Text agents cannot answer phone calls; choose a pipeline or realtime agent',
      'invalid_inbound_agent',
    )
  if (!agent.active) throw AppError.agentInactive()
  if (!ctx.livekit)
    throw AppError.unavailable('LiveKit is not configured: this deployment cannot answer calls')
  if (await store.findAnsweringElsewhere(ctx.db, { number, organizationId }))
    throw AppError.conflict(`${number} already answers calls in another organization`, 'inbound_number_taken')
}

const numberTaken = (number: string) =>
  AppError.conflict(`${number} is already registered in this organization`, 'phone_number_taken')

export const createPhoneNumber = async (ctx: AppContext, actor: AgentActor, input: CreatePhoneNumber) => {
  requireManager(actor)
  requireValidNumber(input.number)
  if (input.outboundAgentId) await requireOutboundAgent(ctx, actor.organizationId, input.outboundAgentId)
  if (input.inboundAgentId)
    await requireInbound(ctx, {
      organizationId: actor.organizationId,
      agentId: input.inboundAgentId,
      number: input.number,
    })
  let row: store.PhoneNumberRow
  try {
    row = await store.insertPhoneNumber(ctx.db, {
      id: newUlid(),
      organizationId: actor.organizationId,
      fields: {
        number: input.number,
        label: input.label ?? null,
        outboundAgentId: input.outboundAgentId ?? null,
        inboundAgentId: input.inboundAgentId ?? null,
        sipTrunkId: input.sipTrunkId,
      },
    })
  } catch (error) {
    if (isUniqueViolation(error)) throw numberTaken(input.number)
    throw error
  }
  return row.inboundAgentId ? syncInbound(ctx, row) : row
}

export const listPhoneNumbers = async (ctx: AppContext, actor: AgentActor, query: ListPhoneNumbersQuery) => {
  const { phoneNumbers, total } = await store.listPhoneNumbers(ctx.db, {
    organizationId: actor.organizationId,
    ...pageWindow(query),
  })
  return { phoneNumbers, pagination: paginationOf(query, total) }
}

export const getPhoneNumber = async (ctx: AppContext, actor: AgentActor, id: string) => {
  const row = await store.findPhoneNumber(ctx.db, { organizationId: actor.organizationId, id })
  if (!row) throw AppError.notFound('phone number')
  return row
}

export const updatePhoneNumber = async (
  ctx: AppContext,
  actor: AgentActor,
  { id, changes }: { id: string; changes: PatchPhoneNumber },
) => {
  requireManager(actor)
  const before = await getPhoneNumber(ctx, actor, id)
  if (changes.number !== undefined) requireValidNumber(changes.number)
  if (changes.outboundAgentId) await requireOutboundAgent(ctx, actor.organizationId, changes.outboundAgentId)
  const inboundAgentId = changes.inboundAgentId === undefined ? before.inboundAgentId : changes.inboundAgentId
  const number = changes.number ?? before.number
  if (inboundAgentId && (changes.inboundAgentId !== undefined || changes.number !== undefined))
    await requireInbound(ctx, { organizationId: actor.organizationId, agentId: inboundAgentId, number })
  try {
    const row = await store.updatePhoneNumber(ctx.db, {
      organizationId: actor.organizationId,
      id,
      fields: changes,
    })
    if (!row) throw AppError.notFound('phone number')
    // LiveKit follows every change that touches it: answering on or off, or another number.
    const touchesLiveKit =
      row.inboundAgentId !== null ||
      before.inboundAgentId !== null ||
      row.livekitTrunkId !== null ||
      row.livekitDispatchRuleId !== null
    return touchesLiveKit ? await syncInbound(ctx, row) : row
  } catch (error) {
    if (isUniqueViolation(error)) throw numberTaken(changes.number ?? '')
    throw error
  }
}

/**
 * Deleting is allowed while jobs use the number: jobs keep its id, and the dialer fails a job
 * whose number is gone ("phone number deleted") instead of dialling from a number the
 * organization gave up.
 */
export const deletePhoneNumber = async (ctx: AppContext, actor: AgentActor, id: string) => {
  requireManager(actor)
  const deleted = await store.deletePhoneNumberReturning(ctx.db, { organizationId: actor.organizationId, id })
  if (!deleted) throw AppError.notFound('phone number')
  // The number is gone either way; a trunk or rule LiveKit kept is the reconcile job's to delete.
  await removeInbound(ctx, deleted).catch((error: unknown) =>
    ctx.logger.warn({ err: error, phoneNumberId: id }, 'could not delete an inbound number from LiveKit'),
  )
}
