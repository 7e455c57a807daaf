import type { AppContext } from '../context.ts'
import * as store from './store.ts'

/**
 * Stores a streaming reply's text every CHAT_CHECKPOINT_MS while it grows (store.checkpointReply),
 * one write at a time and never on the streaming path: if this instance dies mid-reply, the
 * conversation keeps what was streamed up to the last checkpoint as a `partial` message.
 * `finish` stops it and waits for a write in flight, so the reply's final record comes last.
 */
export const startCheckpoints = (
  ctx: AppContext,
  { conversationId, messageId }: { conversationId: string; messageId: string },
) => {
  let text = ''
  let saved = ''
  let writing: Promise<void> | null = null
  const timer = setInterval(() => {
    if (writing || text === saved) return
    const content = text
    writing = store
      .checkpointReply(ctx.db, { id: messageId, conversationId, content })
      .then(() => {
        saved = content
      })
      .catch((error: unknown) =>
        ctx.logger.warn({ err: error, conversationId }, 'could not checkpoint the reply'),
      )
      .finally(() => {
        writing = null
      })
  }, ctx.config.chatCheckpointMs)
  timer.unref()
  // Methods, not arrow properties: tsx names each arrow function it sees (esbuild's keepNames),
  // which gives every one made per reply a property store of its own (about 256 bytes each).
  return {
    /** The reply's text grew by `delta`. */
    add(delta: string) {
      text += delta
    },
    async finish() {
      clearInterval(timer)
      await writing
    },
  }
}
