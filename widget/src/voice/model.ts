import { batch, computed, signal } from '@preact/signals'
import type { Credentials } from '../credentials.ts'
import type { Caption, Continuation, VoiceCall, VoiceChunk, VoiceFailure, VoiceState } from './contract.ts'

export type { VoiceState }

export type VoiceModelOptions = Credentials & {
  /** Fetches the voice chunk; called on the first call only. */
  load: () => Promise<VoiceChunk>
  baseUrl: string
  agentId: string
  isPushToTalk: () => boolean
  /** The chat session the call continues, opened if need be; null: the call stands alone. */
  continues?: () => Promise<Continuation | null>
  onCaption: (caption: Caption) => void
  onAgentName: (name: string) => void
  onState: (state: Exclude<VoiceState, 'idle'>, failure: VoiceFailure | null) => void
}

/** The state of one widget's voice call; LiveKit, and what its events mean, stay in the chunk. */
export const createVoiceModel = ({
  load,
  isPushToTalk,
  continues = async () => null,
  onCaption,
  onAgentName,
  onState,
  ...session
}: VoiceModelOptions) => {
  const state = signal<VoiceState>('idle')
  const failure = signal<VoiceFailure | null>(null)
  const isMuted = signal(false)
  /** No voice on this deployment (a session said so, or the server did): no microphone is offered. */
  const isOff = signal(false)
  const chunk = signal<VoiceChunk | null>(null)
  const isActive = computed(() => state.value !== 'idle' && state.value !== 'ended')
  let call: VoiceCall | null = null

  const report = (next: Exclude<VoiceState, 'idle'>, why: VoiceFailure | null = null) => {
    if (next === 'ended') call = null
    if (why === 'voice_off') isOff.value = true
    batch(() => {
      failure.value = why
      state.value = next
    })
    onState(next, why)
  }

  const start = async () => {
    if (isActive.peek()) return
    isMuted.value = isPushToTalk()
    report('connecting')
    let continuation: Continuation | null
    try {
      chunk.value ??= await load()
      continuation = await continues().catch(() => null)
    } catch {
      return report('ended', 'network')
    }
    // Ended (or unmounted) while the chunk was loading.
    if (state.peek() !== 'connecting' || !chunk.value) return
    call = chunk.value.startCall({
      ...session,
      isMuted: isMuted.peek(),
      continues: continuation,
      on: { onState: (next, why) => report(next, why), onCaption, onAgentName },
    })
  }

  const end = () => {
    if (!isActive.peek()) return
    call?.end()
    report('ended')
  }

  const setMuted = (value: boolean) => {
    if (value === isMuted.peek()) return
    isMuted.value = value
    call?.setMuted(value)
  }

  return { state, failure, isActive, isMuted, isOff, chunk, start, end, setMuted, dispose: end }
}

export type VoiceModel = ReturnType<typeof createVoiceModel>
