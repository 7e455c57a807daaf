import { describe, expect, it } from 'vitest'
import { startCall, toMicrophoneFailure } from './call.ts'
import type { VoiceFailure, VoiceState } from './contract.ts'

const named = (name: string) => Object.assign(new Error(name), { name })

describe('voice chunk', () => {
  it('tells a denied microphone from a missing one and from a browser that will not', () => {
    expect(toMicrophoneFailure(named('NotAllowedError'))).toBe('mic_denied')
    expect(toMicrophoneFailure(named('SecurityError'))).toBe('mic_denied')
    expect(toMicrophoneFailure(named('NotFoundError'))).toBe('no_device')
    expect(toMicrophoneFailure(named('NotReadableError'))).toBe('no_device')
    expect(toMicrophoneFailure(named('TypeError'))).toBe('webrtc_blocked')
  })

  it('ends at once with webrtc_blocked where there is no WebRTC (here: Node), asking no server', async () => {
    const states: [VoiceState, VoiceFailure | undefined][] = []
    const ended = new Promise<void>((resolve) =>
      startCall({
        // Nothing listens here: a request would fail as `network`, not `webrtc_blocked`.
        baseUrl: 'http://127.0.0.1:1',
        apiKey: 'tk_widget_x',
        agentId: 'voice-agent',
        isMuted: false,
        continues: null,
        on: {
          onState: (state, failure) => {
            states.push([state, failure])
            if (state === 'ended') resolve()
          },
          onCaption: () => {},
          onAgentName: () => {},
        },
      }),
    )
    await ended
    expect(states).toEqual([['ended', 'webrtc_blocked']])
  })
})
