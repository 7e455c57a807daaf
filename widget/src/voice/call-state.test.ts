import { describe, expect, it } from 'vitest'
import { createCallState } from './call-state.ts'

const setup = (isMuted = false) => {
  const states: string[] = []
  const call = createCallState(
    { onState: (state, failure) => states.push(failure ? `${state}:${failure}` : state) },
    isMuted,
  )
  return { call, states }
}

describe('call state', () => {
  it('turns what the room says into the states the visitor sees, each change once', () => {
    const { call, states } = setup()
    call.update({ isAgentSpeaking: true }) // still connecting: nothing to report yet
    call.update({ isConnected: true })
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

  it('ends once, with the failure, and reports nothing after', () => {
    const { call, states } = setup(true)
    call.update({ isConnected: true })
    expect(call.end({ failure: 'media_error' })).toBe(true)
    expect(call.end({})).toBe(false)
    call.update({ isMuted: false })
    expect(states).toEqual(['muted', 'ended:media_error'])
    expect(call.isOver()).toBe(true)
  })

  it('reports no end when the widget hung up itself (it has shown that already)', () => {
    const { call, states } = setup()
    expect(call.end(null)).toBe(true)
    expect(states).toEqual([])
  })
})
