import type { CallEvents, VoiceFailure, VoiceState } from './contract.ts'

type Facts = { isConnected: boolean; isReconnecting: boolean; isMuted: boolean; isAgentSpeaking: boolean }

const toState = (facts: Facts): VoiceState =>
  !facts.isConnected
    ? 'connecting'
    : facts.isReconnecting
      ? 'reconnecting'
      : facts.isMuted
        ? 'muted'
        : facts.isAgentSpeaking
          ? 'agent-speaking'
          : 'listening'

/**
 * What the room has said so far, turned into the state the visitor sees: each change reported once,
 * nothing after the end. Part of the voice chunk; kept apart from LiveKit so it can be tested alone.
 */
export const createCallState = ({ onState }: Pick<CallEvents, 'onState'>, isMuted: boolean) => {
  const facts: Facts = { isConnected: false, isReconnecting: false, isMuted, isAgentSpeaking: false }
  let reported: VoiceState = 'connecting'
  let isOver = false
  return {
    isOver: () => isOver,
    isConnected: () => facts.isConnected,
    isMuted: () => facts.isMuted,
    update: (change: Partial<Facts>) => {
      Object.assign(facts, change)
      const state = toState(facts)
      if (isOver || state === reported || state === 'connecting' || state === 'idle' || state === 'ended')
        return
      reported = state
      onState(state)
    },
    /** Ends once; `end()` without a report is the widget's own hang-up, which it has already shown. */
    end: (report: { failure?: VoiceFailure } | null) => {
      if (isOver) return false
      isOver = true
      if (report) onState('ended', report.failure)
      return true
    },
  }
}
