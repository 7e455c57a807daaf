import type { AgentRuntimeConfig } from '@parley/shared'
import type { AgentRow } from '../agents/index.ts'
import { placeHolds } from '../billing/index.ts'
import type { AppContext } from '../context.ts'
import { type SipDialError, toSipDialError } from '../providers/livekit.ts'
import { buildDispatchMetadata, type ContactOfCall, sipIdentityOf } from './dispatch-metadata.ts'
import { estimateCallMicros, voiceRateFor } from './pricing.ts'
import { deleteCallRoom } from './rooms.ts'
import { closeCall, openCalls } from './service.ts'

/**
 * A dialled call: Parley rings a number from one of the organization's phone numbers. Today the
 * batch dialer asks for these, one round of contacts at a time (campaigns stay in batch/: which
 * contact, when, how often); one call on request (requested-call.ts) goes through the same dial.
 */

/** A dial's hold stops counting after this long should its call's close never come. */
const DIAL_HOLD_TTL_MS = 6 * 60 * 60 * 1000

/** How long LiveKit lets the phone ring before it answers CreateSIPParticipant with no-answer. */
export const RINGING_TIMEOUT_SECONDS = 30
/** LiveKit closes the room this long after the last participant left (the call's natural end). */
const EMPTY_ROOM_SECONDS = 30

/** Who dials, for whom: the same for every contact of a round. */
export type DialSource = {
  organizationId: string
  keyId: string | null
  agent: AgentRow
  runtimeConfig: AgentRuntimeConfig
  /** The E.164 number the call comes from. */
  fromNumber: string
  batchJobId: string
}

/** One contact to ring, in the room its caller named. */
export type ContactToDial = { contact: ContactOfCall; roomName: string }

/** A call opened, paid for and ready to dial: its index among the contacts asked for. */
export type OpenedDial = { index: number; callId: string; metadata: string }

const architectureOf = (agent: AgentRow) => (agent.agentArchitecture === 'realtime' ? 'realtime' : 'pipeline')

/**
 * Opens the calls of a round's contacts and reserves each dial's expected cost (a hold per call,
 * settled by the call's close), in the order that makes a crash safe: call rows first, then the
 * holds; the room, the agent and the SIP dial come later (dialCall). One statement each for the
 * whole round. A contact whose dial the credits no longer cover is closed undialled and named in
 * `unpaid`. `releaseUndialled` hears of the contacts that will not be dialled before their calls
 * close (the caller gives their claims back); a failure throws after it.
 */
export const openDialledCalls = async (
  ctx: AppContext,
  {
    source,
    contacts,
    releaseUndialled,
  }: {
    source: DialSource
    contacts: ContactToDial[]
    releaseUndialled: (indexes: number[]) => Promise<void>
  },
): Promise<{ opened: OpenedDial[]; unpaid: number[]; unknownPlaceholders: string[] }> => {
  const { organizationId, keyId, agent, runtimeConfig, fromNumber, batchJobId } = source
  const all = contacts.map((_, index) => index)
  const microsPerMinute = await voiceRateFor(ctx, { agent, organizationId })
  let callIds: string[]
  try {
    callIds = await openCalls(
      ctx,
      contacts.map(({ contact, roomName }) => ({
        organizationId,
        agentId: agent.id,
        keyId,
        roomName,
        architecture: architectureOf(agent),
        microsPerMinute,
        direction: 'outbound',
        phoneNumber: contact.phone,
        batchJobId,
        batchContactId: contact.contactId,
      })),
    )
  } catch (error) {
    await releaseUndialled(all)
    throw error
  }
  // No dial without its paid-for hold (billing/holds.ts): the contacts past what the credits cover wait again.
  const held = new Set(
    await placeHolds(ctx, {
      organizationId,
      amountMicros: estimateCallMicros(microsPerMinute),
      kind: 'call',
      references: callIds,
      ttlMs: DIAL_HOLD_TTL_MS,
    }).catch(async (error: unknown) => {
      await releaseUndialled(all)
      await Promise.all(
        contacts.map(({ roomName }) =>
          closeCall(ctx, { roomName, reason: 'claim_released', status: 'failed' }),
        ),
      )
      throw error
    }),
  )
  const unpaid = all.filter((index) => !held.has(callIds[index] ?? ''))
  if (unpaid.length > 0) {
    await releaseUndialled(unpaid)
    await Promise.all(
      unpaid.map((index) =>
        closeCall(ctx, {
          roomName: contacts[index]?.roomName ?? '',
          reason: 'insufficient_credits',
          status: 'failed',
        }),
      ),
    )
  }
  const unknown = new Set<string>()
  const opened = all.flatMap((index) => {
    const callId = callIds[index] ?? ''
    const toDial = contacts[index]
    if (!toDial || !held.has(callId)) return []
    const { metadata, unknownPlaceholders } = buildDispatchMetadata({
      runtimeConfig,
      callId,
      organizationId,
      roomName: toDial.roomName,
      party: { direction: 'outbound', contact: toDial.contact, batchJobId, fromNumber },
    })
    for (const name of unknownPlaceholders) unknown.add(name)
    return [{ index, callId, metadata }]
  })
  return { opened, unpaid, unknownPlaceholders: [...unknown] }
}

/**
 * One attempt of an opened call: room, agent and SIP dial. Resolves when the person answered
 * (null), or with why they did not (the caller records it, then closes the call with
 * closeUnansweredCall).
 */
export const dialCall = async (
  ctx: AppContext,
  {
    trunkId,
    number,
    contactId,
    roomName,
    metadata,
  }: { trunkId: string; number: string; contactId: string; roomName: string; metadata: string },
): Promise<SipDialError | null> => {
  const livekit = ctx.livekit
  if (!livekit) throw new Error('dialCall needs LiveKit; the caller checks it first')
  try {
    await livekit.createRoom({ name: roomName, emptyTimeoutSeconds: EMPTY_ROOM_SECONDS, metadata })
    await livekit.dispatchAgent({ roomName, metadata })
    await livekit.dialSip({
      trunkId,
      number,
      roomName,
      identity: sipIdentityOf(contactId),
      ringingTimeoutSeconds: RINGING_TIMEOUT_SECONDS,
    })
    return null
  } catch (error) {
    return toSipDialError(error)
  }
}

/** Closes a call nobody answered (failed, with the dial's outcome and SIP status) and deletes its room. */
export const closeUnansweredCall = async (
  ctx: AppContext,
  { roomName, failure }: { roomName: string; failure: SipDialError },
) => {
  await closeCall(ctx, {
    roomName,
    reason: failure.outcome,
    status: 'failed',
    sipStatus: failure.sipStatus,
  })
  await deleteCallRoom(ctx, { roomName, why: 'an unanswered dial' })
}
