import type { VoiceFailure } from './contract.ts'

/**
 * After these the panel points the visitor back to typing (anchors dead-end here). A module of its
 * own, free of signals, because the panel chunk needs it and runs on the first load's runtime.
 */
export const isTextFallback = (failure: VoiceFailure | null) =>
  failure === 'voice_off' ||
  failure === 'mic_denied' ||
  failure === 'no_device' ||
  failure === 'webrtc_blocked' ||
  failure === 'agent_unavailable'
