import type { ReplySource } from './contract.ts'

/**
 * One line of the transcript. `handoff` and `ended` are the widget's own lines, not messages;
 * `isSpoken` marks what was said in a voice call (live captions, and spoken turns the history
 * brings back), `isPartial` a caption still being spoken.
 */
export type Entry = {
  id: string
  kind: 'user' | 'assistant' | 'handoff' | 'ended'
  text: string
  isSpoken?: boolean
  isPartial?: boolean
  /** An answer's knowledge sources, shown under it as links. */
  sources?: ReplySource[]
}
