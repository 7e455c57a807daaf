/**
 * The voice chunk's entry: a thin adapter from livekit-client to the plain callbacks of contract.ts.
 * Built on its own as `voice-[hash].js` (see vite.config.ts) and imported only when a call starts.
 * Nothing here needs a worklet, a worker, blob: or eval, so it runs under a strict CSP.
 */
import {
  createLocalAudioTrack,
  type LocalAudioTrack,
  type Participant,
  type RemoteTrack,
  Room,
  RoomEvent,
  type TextStreamReader,
  Track,
} from 'livekit-client'
import { voiceStringsFor } from '../i18n.ts'
import { createCallState } from './call-state.ts'
import type { CallEvents, CallRequest, VoiceCall, VoiceFailure } from './contract.ts'
import { CallFailure, createVoiceSession } from './session.ts'

export { voiceStringsFor as stringsFor }

// LiveKit Agents publish captions as text streams on this topic (older agents: transcription events).
const TRANSCRIPTION_TOPIC = 'lk.transcription'

/** What getUserMedia's refusal means for the visitor. */
export const toMicrophoneFailure = (error: unknown): VoiceFailure => {
  const name = error instanceof Error ? error.name : ''
  if (name === 'NotAllowedError' || name === 'SecurityError') return 'mic_denied'
  if (name === 'NotFoundError' || name === 'OverconstrainedError' || name === 'NotReadableError')
    return 'no_device'
  return 'webrtc_blocked'
}

const askForMicrophone = async () => {
  const hasWebRtc =
    typeof navigator !== 'undefined' &&
    typeof navigator.mediaDevices?.getUserMedia === 'function' &&
    typeof RTCPeerConnection === 'function'
  if (!hasWebRtc) throw new CallFailure('webrtc_blocked')
  try {
    return await createLocalAudioTrack({ echoCancellation: true, noiseSuppression: true })
  } catch (error) {
    throw new CallFailure(toMicrophoneFailure(error))
  }
}

/** Captions from text streams: one stream per segment, its chunks appended until it closes. */
const readCaptions = (room: Room, on: CallEvents) => {
  let hasStreams = false
  room.registerTextStreamHandler(TRANSCRIPTION_TOPIC, async (reader: TextStreamReader) => {
    hasStreams = true
    const { attributes = {}, id: streamId } = reader.info
    const id = attributes['lk.segment_id'] ?? streamId
    // Captions of the visitor's own speech name the visitor's microphone track.
    const trackId = attributes['lk.transcribed_track_id']
    const role = trackId && room.localParticipant.trackPublications.has(trackId) ? 'user' : 'assistant'
    let text = ''
    for await (const chunk of reader) {
      text += chunk
      on.onCaption({ id, role, text, isFinal: false })
    }
    on.onCaption({ id, role, text, isFinal: attributes['lk.transcription_final'] !== 'false' })
  })
  // Agents that publish both would show every line twice: once streams arrive, they win.
  room.on(RoomEvent.TranscriptionReceived, (segments, participant?: Participant) => {
    if (hasStreams) return
    for (const segment of segments)
      on.onCaption({
        id: segment.id,
        role: participant?.isLocal ? 'user' : 'assistant',
        text: segment.text,
        isFinal: segment.final,
      })
  })
}

/** Plays the agent's audio; the elements stay out of the host page's DOM. */
const playRemoteAudio = (room: Room) => {
  room.on(RoomEvent.TrackSubscribed, (track: RemoteTrack) => {
    if (track.kind === Track.Kind.Audio) track.attach()
  })
  room.on(RoomEvent.TrackUnsubscribed, (track: RemoteTrack) => {
    track.detach()
  })
}

/** Whether an agent (LiveKit Agents' worker, participant kind AGENT) is in the room now. */
const hasAgentIn = (room: Room) =>
  [...room.remoteParticipants.values()].some((participant) => participant.isAgent)

export const startCall = ({ isMuted, continues, on, ...session }: CallRequest): VoiceCall => {
  const room = new Room()
  let microphone: LocalAudioTrack | null = null
  // Declared before `call`, whose agent timer may call it.
  let finish: (report: { failure?: VoiceFailure } | null) => void = () => {}
  const call = createCallState(on, {
    isMuted,
    onAgentMissing: () => finish({ failure: 'agent_unavailable' }),
  })
  const stop = () => {
    microphone?.stop()
    for (const participant of room.remoteParticipants.values())
      for (const publication of participant.audioTrackPublications.values()) publication.track?.detach()
    void room.disconnect()
  }
  finish = (report) => {
    if (call.end(report)) stop()
  }
  const followAgents = () => call.update({ hasAgent: hasAgentIn(room) })

  playRemoteAudio(room)
  readCaptions(room, on)
  room
    .on(RoomEvent.ActiveSpeakersChanged, (speakers) =>
      call.update({ isAgentSpeaking: speakers.some((speaker) => !speaker.isLocal) }),
    )
    .on(RoomEvent.Reconnecting, () => call.update({ isReconnecting: true }))
    .on(RoomEvent.Reconnected, () => call.update({ isReconnecting: false }))
    .on(RoomEvent.ParticipantConnected, followAgents)
    .on(RoomEvent.ParticipantDisconnected, followAgents)
    // The agent hung up, the room was closed or the network is gone for good. A room that goes
    // before any agent came is the server giving up on the agent (no worker took the call).
    .on(RoomEvent.Disconnected, () => {
      if (call.isConnected()) finish(call.hadAgent() ? {} : { failure: 'agent_unavailable' })
    })

  // The microphone first: a visitor who refuses it costs no room, no agent and no minutes.
  void (async () => {
    try {
      const track = await askForMicrophone()
      if (call.isOver()) return track.stop()
      microphone = track
      if (call.isMuted()) await track.mute()
      const created = await createVoiceSession({ ...session, continues })
      if (call.isOver()) return
      on.onAgentName(created.agentName)
      await room.connect(created.url, created.token)
      if (call.isOver()) return
      await room.localParticipant.publishTrack(track)
      // The agent may be there already (it is dispatched with the room).
      call.update({ isConnected: true, hasAgent: hasAgentIn(room) })
    } catch (error) {
      finish({ failure: error instanceof CallFailure ? error.failure : 'media_error' })
    }
  })()

  return {
    setMuted: (muted) => {
      // A press is a user gesture: the moment to lift a blocked autoplay of the agent's voice.
      void room.startAudio()
      void (muted ? microphone?.mute() : microphone?.unmute())
      call.update({ isMuted: muted })
    },
    end: () => finish(null),
  }
}
