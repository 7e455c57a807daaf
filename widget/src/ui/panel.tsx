import type { Ref } from 'preact'
import type { ChatModel } from '../chat/model.ts'
import type { Strings } from '../i18n.ts'
import { Composer } from './composer.tsx'
import { Notice } from './notice.tsx'
import { Transcript } from './transcript.tsx'

type PanelProps = {
  model: ChatModel
  strings: Strings
  suggestions: string[]
  inputRef: Ref<HTMLTextAreaElement>
  /** Absent for an inline widget, which cannot be closed. */
  onClose?: () => void
}

export const Panel = ({ model, strings, suggestions, inputRef, onClose }: PanelProps) => {
  const canEnd = model.phase.value === 'ready' && model.entries.value.length > 0
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
      }}
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
      <Composer model={model} strings={strings} inputRef={inputRef} />
    </section>
  )
}
