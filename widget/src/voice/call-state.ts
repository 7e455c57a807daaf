import type { CallEvents, VoiceFailure, VoiceState } from './contract.ts'

/**
 * How long the visitor waits, connected, for the agent to join (or to come back after it left)
 * before the call ends as `agent_unavailable`. The server gives up on an agent after 15 s and
 * deletes the room, which usually ends the call first; this bound holds when that word is lost.
 */
export const AGENT_WAIT_MS = 25_000

type Facts = {
  isConnected: boolean
  isReconnecting: boolean
  isMuted: boolean
  isAgentSpeaking: boolean
  /** An agent participant is in the room now. */
  hasAgent: boolean
  /** An agent participant has been in the room at some point. */
  hadAgent: boolean
}

// Nothing to listen to before the agent is there: `connecting` lasts until it joins, and its
// leaving reads as a reconnect (a worker taking over joins anew).
const toState = (facts: Facts): VoiceState =>
  !facts.isConnected || !facts.hadAgent
    ? 'connecting'
    : facts.isReconnecting || !facts.hasAgent
      ? 'reconnecting'
      : facts.isMuted
        ? 'muted'
        : facts.isAgentSpeaking
          ? 'agent-speaking'
          : 'listening'

/**
 * What the room has said so far, turned into the state the visitor sees: each change reported once,
 * nothing after the end. While connected without an agent, `onAgentMissing` is called once the
 * agent has been missing for `agentWaitMs`. Part of the voice chunk; kept apart from LiveKit so it
 * can be tested alone.
 */
export const createCallState = (
  { onState }: Pick<CallEvents, 'onState'>,
  {
    isMuted,
    agentWaitMs = AGENT_WAIT_MS,
    onAgentMissing,
  }: { isMuted: boolean; agentWaitMs?: number; onAgentMissing: () => void },
) => {
  const facts: Facts = {
    isConnected: false,
    isReconnecting: false,
    isMuted,
    isAgentSpeaking: false,
    hasAgent: false,
    hadAgent: false,
  }
  let reported: VoiceState = 'connecting'
  let isOver = false
  let agentTimer: ReturnType<typeof setTimeout> | null = null

  const watchAgent = () => {
    const isMissing = facts.isConnected && !facts.hasAgent && !isOver
    if (!isMissing && agentTimer) {
      clearTimeout(agentTimer)
      agentTimer = null
    }
    if (isMissing && !agentTimer) agentTimer = setTimeout(onAgentMissing, agentWaitMs)
  }

  return {
    isOver: () => isOver,
    isConnected: () => facts.isConnected,
    isMuted: () => facts.isMuted,
    hadAgent: () => facts.hadAgent,
    update: (change: Partial<Facts>) => {
      Object.assign(facts, change)
      if (facts.hasAgent) facts.hadAgent = true
      watchAgent()
      const state = toState(facts)
      // `connecting` is never reported: the widget shows it itself, and it comes only first.
      if (isOver || state === reported || state === 'connecting' || state === 'idle' || state === 'ended')
        return
      reported = state
      onState(state)
    },
    /** Ends once; `end()` without a report is the widget's own hang-up, which it has already shown. */
    end: (report: { failure?: VoiceFailure } | null) => {
      if (isOver) return false
      isOver = true
      watchAgent()
      if (report) onState('ended', report.failure)
      return true
    },
  }
}
