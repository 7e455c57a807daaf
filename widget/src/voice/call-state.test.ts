import { afterEach, describe, expect, it, vi } from 'vitest'
import { createCallState } from './call-state.ts'

const setup = (isMuted = false) => {
  const states: string[] = []
  const missing: number[] = []
  const call = createCallState(
    { onState: (state, failure) => states.push(failure ? `${state}:${failure}` : state) },
    { isMuted, agentWaitMs: 1000, onAgentMissing: () => missing.push(Date.now()) },
  )
  return { call, states, missing }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('call state', () => {
  it('turns what the room says into the states the visitor sees, each change once', () => {
    const { call, states } = setup()
    call.update({ isAgentSpeaking: true }) // still connecting: nothing to report yet
    call.update({ isConnected: true, hasAgent: true })
    call.update({ isAgentSpeaking: false })
    call.update({ isAgentSpeaking: false })
    call.update({ isMuted: true })
    call.update({ isAgentSpeaking: true }) // muted wins: the visitor's own state matters more
    call.update({ isReconnecting: true })
    call.update({ isReconnecting: false })
    call.update({ isMuted: false })
    expect(states).toEqual([
      'agent-speaking',
      'listening',
      'muted',
      'reconnecting',
      'muted',
      'agent-speaking',
    ])
  })

  it('stays connecting until the agent has joined, and reads its leaving as a reconnect', () => {
    const { call, states } = setup()
    call.update({ isConnected: true })
    expect(states).toEqual([])
    call.update({ hasAgent: true })
    call.update({ hasAgent: false })
    call.update({ hasAgent: true })
    expect(states).toEqual(['listening', 'reconnecting', 'listening'])
  })

  it('gives up on an agent missing for the bound while connected, not before connecting', () => {
    vi.useFakeTimers()
    const { call, missing } = setup()
    vi.advanceTimersByTime(5000) // not connected yet: the bound has not started
    call.update({ isConnected: true })
    vi.advanceTimersByTime(999)
    call.update({ hasAgent: true }) // in time
    vi.advanceTimersByTime(5000)
    expect(missing).toHaveLength(0)
    call.update({ hasAgent: false }) // left, and nobody came back
    vi.advanceTimersByTime(1000)
    expect(missing).toHaveLength(1)
  })

  it('ends once, with the failure, and reports nothing after; no agent timer outlives the end', () => {
    vi.useFakeTimers()
    const { call, states, missing } = setup(true)
    call.update({ isConnected: true, hasAgent: true })
    call.update({ hasAgent: false })
    expect(call.end({ failure: 'media_error' })).toBe(true)
    expect(call.end({})).toBe(false)
    call.update({ isMuted: false })
    vi.advanceTimersByTime(5000)
    expect(states).toEqual(['muted', 'reconnecting', 'ended:media_error'])
    expect(missing).toEqual([])
    expect(call.isOver()).toBe(true)
  })

  it('reports no end when the widget hung up itself (it has shown that already)', () => {
    const { call, states } = setup()
    expect(call.end(null)).toBe(true)
    expect(states).toEqual([])
  })
})
