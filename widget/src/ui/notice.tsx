import type { ChatModel } from '../chat/model.ts'
import { format, type Strings } from '../i18n.ts'

/** Shown under the transcript: a problem with its way out, the end of a conversation, or starter prompts. */
export const Notice = ({
  model,
  strings,
  suggestions,
}: {
  model: ChatModel
  strings: Strings
  suggestions: string[]
}) => {
  const problem = model.problem.value
  if (model.phase.value === 'ended')
    return (
      <div class="notice ended" part="notice" role="status">
        <span>{strings.ended}</span>
        <button type="button" onClick={() => void model.startNew()}>
          {strings.startNew}
        </button>
      </div>
    )
  if (problem) {
    const seconds = model.retrySeconds.value
    const text =
      problem.kind === 'rate_limited'
        ? format(strings.rateLimited, { seconds })
        : problem.kind === 'unavailable'
          ? strings.unavailable
          : problem.kind === 'network'
            ? strings.network
            : strings.error
    return (
      <div class="notice" part="notice" role="alert" data-kind={problem.kind}>
        <span>{text}</span>
        {problem.kind !== 'unavailable' && (
          <button type="button" disabled={seconds > 0} onClick={() => void model.retry()}>
            {strings.retry}
          </button>
        )}
      </div>
    )
  }
  if (model.hasUserMessage.value || suggestions.length === 0 || model.phase.value === 'streaming') return null
  return (
    <div class="suggestions" part="suggestions">
      {suggestions.map((text) => (
        <button
          key={text}
          type="button"
          class="suggestion"
          part="suggestion"
          dir="auto"
          onClick={() => void model.send(text)}
        >
          {text}
        </button>
      ))}
    </div>
  )
}
