import { type Participant, type Room, RoomEvent } from '@livekit/rtc-node'
import { type SipCallProgress, sipCallProgress } from '@parley/shared'

/**
 * The outbound callee's progress for the call's events: LiveKit SIP keeps it in the SIP
 * participant's `sip.callStatus` attribute (dialing, ringing, active, then hangup; automation
 * while DTMF is sent at the start), and its webhooks carry no attribute changes, so only a
 * participant in the room sees `ringing`. The worker watches it and reports each step to the
 * server (POST /v1/calls/{callId}/sip-status), which records it once.
 */

/** The attribute LiveKit SIP keeps the call's status in. */
export const SIP_CALL_STATUS = 'sip.callStatus'

/**
 * Which statuses to report, fed each status seen: a progress status (dialing, ringing, active)
 * once, and never one before the furthest reported (a late `dialing` after `ringing`); hangup,
 * automation and anything unknown report nothing. Answers the status to report, or null.
 */
export const createSipStatusTracker = () => {
  let furthest = -1
  return (status: string | undefined): SipCallProgress | null => {
    const index = sipCallProgress.indexOf(status as SipCallProgress)
    if (index <= furthest) return null
    furthest = index
    return sipCallProgress[index] ?? null
  }
}

/** What the watcher uses of the room (rtc-node's Room). */
export type SipStatusRoom = Pick<Room, 'on' | 'off' | 'remoteParticipants'>

/**
 * Watches the SIP participant `identity` in the room (there already, or joining later) and
 * reports its progress through `report`, one report at a time and in order. A report that fails
 * is passed to `onError` (the call goes on: its events miss a step). Stops by itself once the
 * callee is answered (`active` is the last step); `stop` ends it sooner. `settled` resolves when
 * the reports made so far are done.
 */
export const watchSipStatus = ({
  room,
  identity,
  report,
  onError,
}: {
  room: SipStatusRoom
  identity: string
  report: (status: SipCallProgress) => Promise<unknown>
  onError: (error: unknown, status: SipCallProgress) => void
}) => {
  const next = createSipStatusTracker()
  let reporting: Promise<void> = Promise.resolve()
  const seen = (attributes: Record<string, string> | undefined) => {
    const status = next(attributes?.[SIP_CALL_STATUS])
    if (!status) return
    reporting = reporting.then(() =>
      report(status).then(
        () => undefined,
        (error: unknown) => onError(error, status),
      ),
    )
    if (status === 'active') stop()
  }
  const onAttributes = (_changed: Record<string, string>, participant: Participant) => {
    if (participant.identity === identity) seen(participant.attributes)
  }
  const onConnected = (participant: Participant) => {
    if (participant.identity === identity) seen(participant.attributes)
  }
  const stop = () => {
    room.off(RoomEvent.ParticipantAttributesChanged, onAttributes)
    room.off(RoomEvent.ParticipantConnected, onConnected)
  }
  room.on(RoomEvent.ParticipantAttributesChanged, onAttributes)
  room.on(RoomEvent.ParticipantConnected, onConnected)
  // The dial may have started (or been answered) before the worker joined.
  seen(room.remoteParticipants.get(identity)?.attributes)
  return { stop, settled: () => reporting }
}
