import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { ReplySource } from '../chat/contract.ts'
import type { ChatModel, Entry } from '../chat/model.ts'
import { format, type Strings } from '../i18n.ts'
import { MarkdownView } from './markdown-view.tsx'

// Within this many pixels of the bottom the visitor counts as "following" the reply.
const FOLLOW_SLACK_PX = 40

/** A message's bubble; what was said in a voice call reads in the same timeline, marked as spoken. */
const bubble = ({ kind, isSpoken }: Entry) =>
  isSpoken
    ? { class: `message ${kind} spoken`, part: `message message-${kind} message-spoken` }
    : { class: `message ${kind}`, part: `message message-${kind}` }

/** The knowledge sources an answer was given, as links under it (titles alone when there is no URL). */
const Sources = ({ sources, label }: { sources: ReplySource[]; label: string }) => (
  <ul class="sources" part="sources" aria-label={label}>
    {sources.map((source) => (
      <li key={`${source.title} ${source.url}`}>
        {source.url ? (
          <a href={source.url} target="_blank" rel="noopener noreferrer">
            {source.title}
          </a>
        ) : (
          source.title
        )}
      </li>
    ))}
  </ul>
)

const Line = ({ entry, strings }: { entry: Entry; strings: Strings }) => {
  if (entry.kind === 'user')
    return (
      <div {...bubble(entry)} dir="auto">
        {entry.text}
      </div>
    )
  if (entry.kind === 'assistant')
    return (
      <div {...bubble(entry)} dir="auto">
        <MarkdownView text={entry.text} />
        {entry.sources && <Sources sources={entry.sources} label={strings.sources} />}
      </div>
    )
  if (entry.kind === 'handoff')
    return (
      <div class="line handoff" part="handoff">
        {format(strings.handoff, { name: entry.text })}
      </div>
    )
  return null
}

/** The messages, following the reply while the visitor is at the bottom and not once they scroll up. */
export const Transcript = ({ model, strings }: { model: ChatModel; strings: Strings }) => {
  const box = useRef<HTMLDivElement>(null)
  const [isFollowing, setFollowing] = useState(true)
  const entries = model.entries.value
  const tool = model.toolStatus.value
  const isTyping = model.isAwaitingFirstChunk.value
  useLayoutEffect(() => {
    const element = box.current
    if (element && isFollowing) element.scrollTop = element.scrollHeight
  }, [entries, tool, isTyping, isFollowing])
  const onScroll = () => {
    const element = box.current
    if (element)
      setFollowing(element.scrollHeight - element.scrollTop - element.clientHeight < FOLLOW_SLACK_PX)
  }
  return (
    // A scrollable region must be reachable by keyboard to be scrolled without a mouse.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: see above
    <div class="transcript" part="transcript" ref={box} onScroll={onScroll} tabIndex={0} role="log">
      {entries.map((entry) => (
        <Line key={entry.id} entry={entry} strings={strings} />
      ))}
      {isTyping && !tool && (
        <div class="message assistant typing" role="img" aria-label={strings.typing}>
          <span />
          <span />
          <span />
        </div>
      )}
      {tool && (
        <div class="line tool" part="tool-status">
          {format(strings.usingTool, { name: tool.replace(/_/g, ' ') })}
        </div>
      )}
      {!isFollowing && (
        <button type="button" class="jump" part="jump" onClick={() => setFollowing(true)}>
          {strings.jumpToLatest}
        </button>
      )}
    </div>
  )
}
