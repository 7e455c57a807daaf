import type { voice } from '@livekit/agents'
import {
  type DispatchMetadata,
  INBOUND_ROOM_PREFIX,
  type InboundCallOpen,
  type InboundJobMetadata,
  ZInboundJobMetadata,
} from '@parley/shared'
import type { WorkerApi } from './worker-api.ts'

/**
 * Inbound calls: LiveKit's dispatch rule for one of the organization's numbers puts each caller in
 * a room of their own (`call-inbound-…`) and dispatches the worker with `{kind: 'inbound',
 * phoneNumberId}`. Nothing of the call exists yet: the worker reads who rang from the SIP
 * participant's attributes and asks the server to open the call, which answers the call's
 * dispatch metadata (then the call runs as any other) or a short refusal the agent says before
 * hanging up.
 */

/** An inbound job's metadata, when the room is an inbound call's and the metadata names a number. */
export const readInboundJob = (roomName: string, metadata: string): InboundJobMetadata | null => {
  if (!roomName.startsWith(INBOUND_ROOM_PREFIX)) return null
  try {
    const parsed = ZInboundJobMetadata.safeParse(JSON.parse(metadata))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}

/** The SIP participant as the room shows it (LiveKit sets its `sip.*` attributes). */
export type SipCaller = { identity: string; attributes: Record<string, string> }

export type Refusal = Extract<InboundCallOpen, { accepted: false }>

/**
 * Opens the inbound call for the caller in the room: its dispatch metadata, or null once the
 * refusal was said (`say`) and the caller hung up on (`hangUp`).
 */
export const answerInbound = async ({
  api,
  job,
  roomName,
  caller,
  agentParticipantSid,
  say,
  hangUp,
}: {
  api: Pick<WorkerApi, 'openInbound'>
  job: InboundJobMetadata
  roomName: string
  caller: SipCaller
  agentParticipantSid: string | undefined
  say: (refusal: Refusal) => Promise<void>
  hangUp: (reason: string) => Promise<void>
}): Promise<DispatchMetadata | null> => {
  const calledNumber = caller.attributes['sip.trunkPhoneNumber']
  const answer = await api.openInbound({
    phoneNumberId: job.phoneNumberId,
    roomName,
    // A caller who withholds their number still rings; LiveKit then has no sip.phoneNumber.
    callerNumber: caller.attributes['sip.phoneNumber'] || 'anonymous',
    ...(calledNumber ? { calledNumber } : {}),
    sipParticipantIdentity: caller.identity,
    ...(agentParticipantSid ? { agentParticipantSid } : {}),
  })
  if (answer.accepted) return answer.dispatch
  try {
    await say(answer)
  } finally {
    await hangUp(`inbound call refused: ${answer.reason}`)
  }
  return null
}

/** Says the refusal in full (no interruption) in a session of its own, then closes it. */
export const sayRefusal = async (session: voice.AgentSession, refusal: Refusal) => {
  try {
    await session.say(refusal.message, { allowInterruptions: false, addToChatCtx: true }).waitForPlayout()
  } finally {
    await session.close()
  }
}
