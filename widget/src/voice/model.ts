import { batch, computed, effect, signal } from '@preact/signals'
import type { CallPhase, Caption, VoiceCall, VoiceChunk, VoiceFailure } from './contract.ts'

/** What the visitor sees of a call, and what `parley:voice-state` reports. */
export type VoiceState =
  | 'idle'
  | 'connecting'
  | 'listening'
  | 'agent-speaking'
  | 'muted'
  | 'reconnecting'
  | 'ended'

/** After these the panel points the visitor back to typing (anchors dead-end here). */
export const isTextFallback = (failure: VoiceFailure | null) =>
  failure === 'mic_denied' || failure === 'no_device' || failure === 'webrtc_blocked'

export type VoiceModelOptions = {
  /** Fetches the voice chunk; called on the first call only. */
  load: () => Promise<VoiceChunk>
  baseUrl: string
  apiKey: string
  agentId: string
  isPushToTalk: () => boolean
  onCaption: (caption: Caption) => void
  onState: (state: Exclude<VoiceState, 'idle'>, failure: VoiceFailure | null) => void
}

/** The state of the voice call of one widget; LiveKit itself stays in the chunk. */
export const createVoiceModel = ({
  load,
  isPushToTalk,
  onCaption,
  onState,
  ...session
}: VoiceModelOptions) => {
  const phase = signal<CallPhase | 'idle'>('idle')
  const failure = signal<VoiceFailure | null>(null)
  const isMuted = signal(false)
  const isAgentSpeaking = signal(false)
  const chunk = signal<VoiceChunk | null>(null)
  const state = computed<VoiceState>(() =>
    phase.value !== 'connected'
      ? phase.value
      : isMuted.value
        ? 'muted'
        : isAgentSpeaking.value
          ? 'agent-speaking'
          : 'listening',
  )
  const isActive = computed(() => state.value !== 'idle' && state.value !== 'ended')
  let call: VoiceCall | null = null

  const stopReporting = effect(() => {
    const current = state.value
    if (current !== 'idle') onState(current, failure.peek())
  })

  const finish = (why: VoiceFailure | null = null) => {
    call = null
    batch(() => {
      failure.value = why
      isAgentSpeaking.value = false
      phase.value = 'ended'
    })
  }

  const start = async () => {
    if (isActive.peek()) return
    batch(() => {
      failure.value = null
      isMuted.value = isPushToTalk()
      phase.value = 'connecting'
    })
    try {
      chunk.value ??= await load()
    } catch {
      return finish('network')
    }
    // Ended (or unmounted) while the chunk was loading.
    if (phase.peek() !== 'connecting') return
    call = chunk.value.startCall({
      ...session,
      isMuted: isMuted.peek(),
      on: {
        onPhase: (next, why) => {
          if (next === 'ended') finish(why)
          else phase.value = next
        },
        onAgentSpeaking: (value) => {
          isAgentSpeaking.value = value
        },
        onCaption,
      },
    })
  }

  const end = () => {
    if (!isActive.peek()) return
    call?.end()
    finish()
  }

  const setMuted = (value: boolean) => {
    if (value === isMuted.peek()) return
    isMuted.value = value
    call?.setMuted(value)
  }

  return {
    state,
    failure,
    isActive,
    isMuted,
    chunk,
    start,
    end,
    setMuted,
    dispose: () => {
      end()
      stopReporting()
    },
  }
}

export type VoiceModel = ReturnType<typeof createVoiceModel>
