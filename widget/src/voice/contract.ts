/**
 * What the main bundle and the lazily loaded voice chunk (livekit-client) say to each other: plain
 * data and callbacks only, so the chunk carries neither Preact nor signals and the main bundle
 * carries no LiveKit code. Types only; nothing here ends up in either bundle.
 */
import type { Credentials } from '../credentials.ts'
import type { Language, VoiceStrings } from '../i18n.ts'

/** Why a call could not start or go on; each has a line in `VoiceStrings`. */
export type VoiceFailure =
  | 'mic_denied'
  | 'no_device'
  | 'webrtc_blocked'
  | 'media_error'
  | 'insufficient_credits'
  /** No voice agent joined the room (the server ended the call), or the agent left for good. */
  | 'agent_unavailable'
  /** The deployment has no voice at all (no LiveKit): no call can ever start here. */
  | 'voice_off'
  | 'network'
  | 'error'

/**
 * What the visitor sees of a call, and what `parley:voice-state` reports. The widget sets `idle`
 * and the first `connecting`, which lasts until the agent has joined the room; the chunk reports
 * the rest, each change once; `ended` comes once, with the failure when the call did not end
 * normally.
 */
export type VoiceState =
  | 'idle'
  | 'connecting'
  | 'listening'
  | 'agent-speaking'
  | 'muted'
  | 'reconnecting'
  | 'ended'

/** One line of live captions: the same `id` arrives again with more text until `isFinal`. */
export type Caption = { id: string; role: 'user' | 'assistant'; text: string; isFinal: boolean }

export type CallEvents = {
  onState: (state: Exclude<VoiceState, 'idle' | 'connecting'>, failure?: VoiceFailure) => void
  onCaption: (caption: Caption) => void
  /** The voice agent's name, once its session is made: the voice-first panel's title. */
  onAgentName: (name: string) => void
}

/** A chat session's conversation and the token that proves the caller holds it. */
export type Continuation = { conversationId: string; sessionToken: string }

export type CallRequest = Credentials & {
  baseUrl: string
  agentId: string
  /** Push-to-talk starts with the microphone muted. */
  isMuted: boolean
  /** The chat session the call continues (one conversation across typing and talking); null: none. */
  continues: Continuation | null
  on: CallEvents
}

/** A call in progress. `end` stops the microphone and leaves the room; nothing is reported after it. */
export type VoiceCall = { setMuted: (isMuted: boolean) => void; end: () => void }

/** The voice chunk's exports. */
export type VoiceChunk = {
  /** Asks for the microphone, creates the voice session, connects; reports through `on`. */
  startCall: (request: CallRequest) => VoiceCall
  stringsFor: (language: Language) => VoiceStrings
}
