import type { Ref, RefObject } from 'preact'
import { useEffect, useRef } from 'preact/hooks'
import type { Language, Strings } from '../i18n.ts'
import type { VoiceModel, VoiceState } from '../voice/model.ts'

const MICROPHONE =
  'M12 14a3 3 0 0 0 3-3V5a3 3 0 0 0-6 0v6a3 3 0 0 0 3 3zm5-3a5 5 0 0 1-10 0H5a7 7 0 0 0 6 6.9V21h2v-3.1a7 7 0 0 0 6-6.9z'

/**
 * Starts a call: beside the text box, or alone in the voice-first panel. It stays (busy, keeping the
 * focus: a disabled button would drop it) until the chunk has loaded and the call bar takes over.
 */
export const MicButton = ({
  voice,
  strings,
  buttonRef,
}: {
  voice: VoiceModel
  strings: Strings
  buttonRef: Ref<HTMLButtonElement>
}) => {
  const isBusy = voice.isActive.value
  if ((isBusy && voice.chunk.value) || voice.isOff.value) return null
  return (
    <button
      ref={buttonRef}
      type="button"
      class="send"
      part="voice-start"
      aria-label={strings.voiceCall}
      aria-busy={isBusy}
      onClick={() => void voice.start()}
    >
      <svg viewBox="0 0 24 24" aria-hidden="true">
        <path d={MICROPHONE} />
      </svg>
    </button>
  )
}

/** The call in progress (its state, mute or push-to-talk, end), or why the last one stopped. */
export const VoiceBar = ({
  voice,
  strings,
  language,
  isPushToTalk,
  micRef,
}: {
  voice: VoiceModel
  strings: Strings
  language: Language
  isPushToTalk: boolean
  micRef: RefObject<HTMLButtonElement | null>
}) => {
  // The call's words come with the chunk; a chunk that failed to load is a lost connection.
  const words = voice.chunk.value?.stringsFor(language)
  const failure = voice.failure.value
  const state = voice.state.value as Exclude<VoiceState, 'idle' | 'ended'>
  const isShown = Boolean(words) && voice.isActive.value
  const endRef = useRef<HTMLButtonElement>(null)
  const wasShown = useRef(isShown)
  useEffect(() => {
    // The focused button left with the change (microphone → call bar → microphone): keyboard users
    // land on its successor instead of the page's start. Focus elsewhere on the page stays put.
    if (wasShown.current !== isShown && document.activeElement === document.body)
      (isShown ? endRef : micRef).current?.focus()
    wasShown.current = isShown
  }, [isShown])
  if (failure)
    return (
      <div class="notice" part="voice-failure" role="alert">
        {words?.[failure] ?? strings.network}
      </div>
    )
  if (!words || !isShown) return null
  const isMuted = voice.isMuted.value
  return (
    <div class="voice" part="voice" data-state={state}>
      <span part="voice-state">{words[state]}</span>
      {isPushToTalk ? (
        <button
          type="button"
          part="voice-talk"
          aria-pressed={!isMuted}
          onPointerDown={() => voice.setMuted(false)}
          onPointerUp={() => voice.setMuted(true)}
          onPointerLeave={() => voice.setMuted(true)}
        >
          {words.holdToTalk}
        </button>
      ) : (
        <button
          type="button"
          part="voice-mute"
          aria-pressed={isMuted}
          onClick={() => voice.setMuted(!isMuted)}
        >
          {words.mute}
        </button>
      )}
      <button ref={endRef} type="button" part="voice-end" onClick={voice.end}>
        {words.endCall}
      </button>
    </div>
  )
}
