import { useSignal } from '@preact/signals'
import type { ComponentChildren, Ref } from 'preact'
import { MAX_MESSAGE_LENGTH } from '../chat/contract.ts'
import type { ChatModel } from '../chat/model.ts'
import type { Strings } from '../i18n.ts'

// The counter appears once a message gets long enough for the limit to matter.
const COUNTER_FROM = 8_000

/**
 * The message box: Enter sends, Shift+Enter is a newline; Stop replaces Send while a reply streams.
 * `children` sit between the box and Send (the microphone).
 */
export const Composer = ({
  model,
  strings,
  inputRef,
  children,
}: {
  model: ChatModel
  strings: Strings
  inputRef: Ref<HTMLTextAreaElement>
  children?: ComponentChildren
}) => {
  const draft = useSignal('')
  const length = draft.value.length
  const isStreaming = model.phase.value === 'streaming'
  const isBlocked =
    model.phase.value === 'ended' ||
    model.retrySeconds.value > 0 ||
    model.problem.value?.kind === 'unavailable'
  const isTooLong = length > MAX_MESSAGE_LENGTH
  const submit = () => {
    if (isStreaming || isBlocked || isTooLong || !draft.value.trim()) return
    void model.send(draft.value)
    draft.value = ''
  }
  return (
    <>
      {length >= COUNTER_FROM && (
        <div class={`counter${isTooLong ? ' over' : ''}`} part="counter" aria-live="polite">
          {length.toLocaleString('en')} / {MAX_MESSAGE_LENGTH.toLocaleString('en')}
        </div>
      )}
      <form
        class="composer"
        part="composer"
        onSubmit={(event) => {
          event.preventDefault()
          submit()
        }}
      >
        <textarea
          ref={inputRef}
          class="input"
          part="input"
          rows={1}
          dir="auto"
          value={draft.value}
          placeholder={strings.placeholder}
          aria-label={strings.placeholder}
          aria-invalid={isTooLong}
          disabled={isBlocked}
          onInput={(event) => {
            draft.value = event.currentTarget.value
          }}
          onKeyDown={(event) => {
            if (event.key !== 'Enter' || event.shiftKey || event.isComposing) return
            event.preventDefault()
            submit()
          }}
        />
        {children}
        {isStreaming ? (
          <button type="button" class="send" part="stop" onClick={() => model.stop()}>
            {strings.stop}
          </button>
        ) : (
          <button
            type="submit"
            class="send"
            part="send"
            disabled={isBlocked || isTooLong || !draft.value.trim()}
          >
            {strings.send}
          </button>
        )}
      </form>
    </>
  )
}
