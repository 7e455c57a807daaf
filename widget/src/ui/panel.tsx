import type { Ref, RefObject } from 'preact'
import type { ChatModel } from '../chat/model.ts'
import type { Language, Strings } from '../i18n.ts'
import type { VoiceModel } from '../voice/model.ts'
import { isTextFallback } from '../voice/text-fallback.ts'
import { Composer } from './composer.tsx'
import { Notice } from './notice.tsx'
import { Transcript } from './transcript.tsx'
import { MicButton, VoiceBar } from './voice-bar.tsx'

type PanelProps = {
  model: ChatModel
  strings: Strings
  suggestions: string[]
  inputRef: Ref<HTMLTextAreaElement>
  micRef: RefObject<HTMLButtonElement | null>
  /** Absent for an inline widget, which cannot be closed. */
  onClose?: () => void
  /** Null when the widget has no voice agent. */
  voice: VoiceModel | null
  language: Language
  /** mode="voice": the call leads and the text box appears only as the fallback. */
  isVoiceFirst: boolean
  isPushToTalk: boolean
}

export const Panel = ({ model, strings, suggestions, inputRef, onClose, ...call }: PanelProps) => {
  const { voice, isVoiceFirst, isPushToTalk } = call
  const canEnd = model.phase.value === 'ready' && model.entries.value.length > 0
  const mic = voice && <MicButton voice={voice} strings={strings} buttonRef={call.micRef} />
  // Push-to-talk: holding Space anywhere in the panel but the text box talks.
  const talk = (event: KeyboardEvent, isDown: boolean) => {
    if (event.key !== ' ' || !isPushToTalk || !voice?.isActive.value) return
    if (event.target instanceof HTMLTextAreaElement) return
    event.preventDefault()
    voice.setMuted(!isDown)
  }
  return (
    <section
      class="panel"
      part="panel"
      role="dialog"
      aria-label={model.agentName.value || strings.chat}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && onClose) {
          event.stopPropagation()
          onClose()
        }
        talk(event, true)
      }}
      onKeyUp={(event) => talk(event, false)}
    >
      <header class="header" part="header">
        <h2 class="title" part="title">
          {model.agentName.value || strings.chat}
        </h2>
        {canEnd && (
          <button type="button" part="end" onClick={() => void model.endConversation()}>
            {strings.end}
          </button>
        )}
        {onClose && (
          <button type="button" part="close" aria-label={strings.closeChat} onClick={onClose}>
            ✕
          </button>
        )}
      </header>
      <Transcript model={model} strings={strings} />
      <Notice model={model} strings={strings} suggestions={suggestions} />
      {voice && (
        <VoiceBar
          voice={voice}
          strings={strings}
          language={call.language}
          isPushToTalk={isPushToTalk}
          micRef={call.micRef}
        />
      )}
      {!isVoiceFirst || isTextFallback(voice?.failure.value ?? null) ? (
        <Composer model={model} strings={strings} inputRef={inputRef}>
          {mic}
        </Composer>
      ) : (
        mic
      )}
    </section>
  )
}
