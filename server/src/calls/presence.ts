import type { AppContext } from '../context.ts'
import { costUpTo } from './pricing.ts'
import * as store from './store.ts'

/**
 * Who is in a call's room, and so whether its billing clock runs: only while the person and the
 * agent are both there. LiveKit's participant webhooks (and the dial's answer, for batch calls)
 * tell; each change is one conditional statement, or one transaction holding the call's lock when
 * a billed interval closes. Webhooks may arrive twice or out of order: a join changes nothing
 * twice, and a leave applies only to the agent participant recorded as present.
 */

/** The person joined: the clock starts if the agent is there. Returns whether the call was active. */
export const recordPersonJoined = (ctx: AppContext, roomName: string) =>
  store.markPersonJoined(ctx.db, roomName)

/** The agent's participant joined (or rejoined): the clock starts if the person is there. */
export const recordAgentJoined = (ctx: AppContext, input: { roomName: string; participantSid: string }) =>
  store.markAgentJoined(ctx.db, input)

/** The interval running now, priced at the live agent's architecture, added to the finished ones. */
const closeInterval = (call: store.CallRow & { now: Date }) => ({
  accruedMicros: costUpTo(call, call.now),
  billingSince: null,
})

/**
 * The agent's participant left: its billed interval ends here, until an agent joins again. A leave
 * of a participant that is not the present one (a late webhook of an earlier join) changes nothing.
 */
export const recordAgentLeft = (ctx: AppContext, input: { roomName: string; participantSid: string }) =>
  ctx.db.transaction().execute(async (tx) => {
    const call = await store.lockActiveCall(tx, { roomName: input.roomName })
    if (!call || call.agentParticipantSid !== input.participantSid) return false
    await store.setBilling(tx, { id: call.id, ...closeInterval(call), agentParticipantSid: null })
    return true
  })

/**
 * Another agent answers the call from now (a handoff): the time so far is priced at the previous
 * agent's price, the time from now at the new one's. Returns null when the call is not
 * active.
 */
export const switchLiveAgent = (
  ctx: AppContext,
  {
    callId,
    agent,
  }: {
    callId: string
    agent: { id: string; architecture: store.CallRow['architecture']; microsPerMinute: number }
  },
) =>
  ctx.db.transaction().execute(async (tx) => {
    const call = await store.lockActiveCall(tx, { id: callId })
    if (!call) return null
    const billing = call.billingSince ? { ...closeInterval(call), billingSince: call.now } : {}
    await store.setBilling(tx, {
      id: call.id,
      ...billing,
      architecture: agent.architecture,
      microsPerMinute: agent.microsPerMinute,
      liveAgentId: agent.id,
    })
    return call
  })
