import { describe, expect, it } from 'vitest'
import type { CallRequest, VoiceChunk } from './contract.ts'
import { createVoiceModel } from './model.ts'
import { isTextFallback } from './text-fallback.ts'

/** A voice chunk that records what it was asked and lets the test play LiveKit's part. */
const createFakeChunk = () => {
  const requests: CallRequest[] = []
  const muted: boolean[] = []
  let ended = 0
  const chunk: VoiceChunk = {
    startCall: (request) => {
      requests.push(request)
      return { setMuted: (value) => muted.push(value), end: () => ended++ }
    },
    stringsFor: () => {
      throw new Error('not used by the model')
    },
  }
  return { chunk, requests, muted, ended: () => ended, on: () => requests.at(-1)?.on }
}

const setup = ({
  isPushToTalk = false,
  load,
  continues,
}: {
  isPushToTalk?: boolean
  load?: () => Promise<VoiceChunk>
  continues?: () => Promise<{ conversationId: string; sessionToken: string } | null>
} = {}) => {
  const fake = createFakeChunk()
  const states: string[] = []
  const captions: string[] = []
  const names: string[] = []
  let loads = 0
  const voice = createVoiceModel({
    load:
      load ??
      (async () => {
        loads++
        return fake.chunk
      }),
    baseUrl: 'https://api.example',
    apiKey: 'tk_widget_x',
    agentId: 'voice-agent',
    isPushToTalk: () => isPushToTalk,
    ...(continues && { continues }),
    onCaption: (caption) => captions.push(`${caption.role}:${caption.text}`),
    onAgentName: (name) => names.push(name),
    onState: (state, reason) => states.push(reason ? `${state}:${reason}` : state),
  })
  return { voice, fake, states, captions, names, loads: () => loads }
}

describe('voice model', () => {
  it('offers no call once the server says voice is off here, and names the voice agent it is told', async () => {
    const { voice, fake, names } = setup()
    await voice.start()
    fake.on()?.onAgentName('Front Desk')
    expect(names).toEqual(['Front Desk'])
    expect(voice.isOff.value).toBe(false)
    fake.on()?.onState('ended', 'voice_off')
    expect([voice.isOff.value, voice.failure.value]).toEqual([true, 'voice_off'])
    expect(isTextFallback('voice_off')).toBe(true)
  })

  it('continues the chat session it is given, and stands alone when there is none or it fails', async () => {
    const linked = setup({ continues: async () => ({ conversationId: 'c1', sessionToken: 't1' }) })
    await linked.voice.start()
    expect(linked.fake.requests[0]?.continues).toEqual({ conversationId: 'c1', sessionToken: 't1' })
    const alone = setup()
    await alone.voice.start()
    expect(alone.fake.requests[0]?.continues).toBeNull()
    const failing = setup({ continues: () => Promise.reject(new Error('offline')) })
    await failing.voice.start()
    expect(failing.fake.requests[0]?.continues).toBeNull()
  })

  it('reports each state of a call in order and loads the chunk once', async () => {
    const { voice, fake, states, loads } = setup()
    await voice.start()
    expect(fake.requests[0]).toMatchObject({
      baseUrl: 'https://api.example',
      agentId: 'voice-agent',
      isMuted: false,
    })
    const on = fake.on()
    on?.onState('listening')
    on?.onState('agent-speaking')
    voice.setMuted(true)
    voice.setMuted(true)
    on?.onState('muted')
    expect(voice.isActive.value).toBe(true)
    voice.end()
    expect(voice.isActive.value).toBe(false)
    await voice.start()
    expect(states).toEqual(['connecting', 'listening', 'agent-speaking', 'muted', 'ended', 'connecting'])
    expect(fake.muted).toEqual([true])
    expect(fake.ended()).toBe(1)
    expect(loads()).toBe(1)
  })

  it('passes captions through and ends with the reason the chunk gives', async () => {
    const { voice, fake, states, captions } = setup()
    await voice.start()
    fake.on()?.onCaption({ id: 's1', role: 'assistant', text: 'Hello', isFinal: true })
    fake.on()?.onState('ended', 'mic_denied')
    expect(captions).toEqual(['assistant:Hello'])
    expect(states).toEqual(['connecting', 'ended:mic_denied'])
    expect(voice.failure.value).toBe('mic_denied')
    expect(isTextFallback(voice.failure.value)).toBe(true)
    expect(isTextFallback('media_error')).toBe(false)
    // No agent came: the visitor can still type.
    expect(isTextFallback('agent_unavailable')).toBe(true)
    // A new call clears the last failure.
    await voice.start()
    expect(voice.failure.value).toBeNull()
  })

  it('ends with `network` when the chunk cannot be fetched', async () => {
    const { voice, states } = setup({ load: () => Promise.reject(new TypeError('Failed to fetch')) })
    await voice.start()
    expect(states).toEqual(['connecting', 'ended:network'])
  })

  it('starts no call when ended (or unmounted) while the chunk loads', async () => {
    let release: (chunk: VoiceChunk) => void = () => {}
    const fake = createFakeChunk()
    const { voice, states } = setup({ load: () => new Promise((resolve) => (release = resolve)) })
    const starting = voice.start()
    voice.dispose()
    release(fake.chunk)
    await starting
    expect(fake.requests).toHaveLength(0)
    expect(states).toEqual(['connecting', 'ended'])
  })

  it('starts muted for push-to-talk and passes every change of the button on once', async () => {
    const { voice, fake } = setup({ isPushToTalk: true })
    await voice.start()
    expect(fake.requests[0]?.isMuted).toBe(true)
    expect(voice.isMuted.value).toBe(true)
    voice.setMuted(false)
    voice.setMuted(false)
    voice.setMuted(true)
    expect(fake.muted).toEqual([false, true])
  })

  it('ends the call in progress on dispose', async () => {
    const { voice, fake, states } = setup()
    await voice.start()
    fake.on()?.onState('listening')
    voice.dispose()
    expect(fake.ended()).toBe(1)
    expect(states.at(-1)).toBe('ended')
  })
})
