// The browser tests' stand-in for livekit-client, the one third party of the voice chunk. No LiveKit
// media server can run on the test machine, so test/browser/run.ts builds the real voice chunk
// (widget/src/voice/call.ts, unchanged) a second time with `livekit-client` resolved to this file
// and serves that build to the pages of the tests that ask for it. Everything of ours runs for real:
// the widget, the chunk's adapter and call state, the voice session request to the real server and
// the fake LiveKit Twirp API behind it. Only the room's media side is scripted: the test plays
// LiveKit's part through `window.parleyScriptedLiveKit` (an agent joins, captions arrive, the
// server closes the room), emitting the same events, with the same shapes, livekit-client emits.

/** The event names call.ts listens to, with livekit-client's own values. */
export const RoomEvent = {
  ParticipantConnected: 'participantConnected',
  ParticipantDisconnected: 'participantDisconnected',
  ActiveSpeakersChanged: 'activeSpeakersChanged',
  Reconnecting: 'reconnecting',
  Reconnected: 'reconnected',
  Disconnected: 'disconnected',
  TrackSubscribed: 'trackSubscribed',
  TrackUnsubscribed: 'trackUnsubscribed',
  TranscriptionReceived: 'transcriptionReceived',
}

export const Track = { Kind: { Audio: 'audio', Video: 'video' } }

/** The real microphone (Chromium's fake device), so granting and denying it work as in a call. */
export const createLocalAudioTrack = async () => {
  const stream = await navigator.mediaDevices.getUserMedia({ audio: true })
  const [track] = stream.getAudioTracks()
  return {
    kind: Track.Kind.Audio,
    sid: `TR_local_${Math.random().toString(36).slice(2)}`,
    isMuted: false,
    stop: () => track.stop(),
    mute: async function () {
      track.enabled = false
      this.isMuted = true
    },
    unmute: async function () {
      track.enabled = true
      this.isMuted = false
    },
  }
}

const rooms = []

export class Room {
  constructor() {
    this.listeners = new Map()
    this.textStreamHandlers = new Map()
    this.remoteParticipants = new Map()
    this.localParticipant = {
      isLocal: true,
      identity: 'visitor',
      trackPublications: new Map(),
      publishTrack: async (track) => {
        this.localParticipant.trackPublications.set(track.sid, { track, trackSid: track.sid })
      },
    }
    this.connection = null
    this.isDisconnected = false
    rooms.push(this)
  }

  on(event, listener) {
    const listeners = this.listeners.get(event) ?? []
    listeners.push(listener)
    this.listeners.set(event, listeners)
    return this
  }

  emit(event, ...args) {
    for (const listener of this.listeners.get(event) ?? []) listener(...args)
  }

  registerTextStreamHandler(topic, handler) {
    this.textStreamHandlers.set(topic, handler)
  }

  /** Records where the widget connected: the LiveKit URL and the token the real server issued. */
  async connect(url, token) {
    this.connection = { url, token }
  }

  async disconnect() {
    this.isDisconnected = true
  }

  async startAudio() {}

  // What LiveKit does, played by the test.

  /** A participant of kind AGENT (LiveKit Agents' worker) joins. */
  agentJoins(identity = 'agent-worker') {
    const participant = { identity, isAgent: true, isLocal: false, audioTrackPublications: new Map() }
    this.remoteParticipants.set(identity, participant)
    this.emit(RoomEvent.ParticipantConnected, participant)
    return participant
  }

  agentLeaves(identity = 'agent-worker') {
    const participant = this.remoteParticipants.get(identity)
    this.remoteParticipants.delete(identity)
    this.emit(RoomEvent.ParticipantDisconnected, participant)
  }

  /** One caption as LiveKit Agents sends it: a text stream on `lk.transcription`, in chunks. */
  async caption({ segmentId, chunks, isFinal = true }) {
    const handler = this.textStreamHandlers.get('lk.transcription')
    if (!handler) throw new Error('no lk.transcription handler registered')
    const reader = {
      info: {
        id: `stream-${segmentId}`,
        topic: 'lk.transcription',
        attributes: { 'lk.segment_id': segmentId, 'lk.transcription_final': String(isFinal) },
      },
      async *[Symbol.asyncIterator]() {
        for (const chunk of chunks) yield chunk
      },
    }
    await handler(reader, { identity: 'agent-worker' })
  }

  /** The server deleted the room: LiveKit disconnects everyone in it (reason ROOM_DELETED). */
  closedByServer() {
    this.isDisconnected = true
    this.emit(RoomEvent.Disconnected, 'ROOM_DELETED')
  }
}

window.parleyScriptedLiveKit = { rooms }
