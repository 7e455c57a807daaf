import type { AppContext } from '../context.ts'
import * as store from './store.ts'

/** The reply's text reaches the database at most this often while it streams. */
const SAVE_EVERY_MS = 1000

/**
 * Keeps a streaming reply's text in its conversation row (at most one write a second, never two at
 * once), so a reply whose instance dies is kept as a partial message by the liveness sweep.
 */
export const trackPartialText = (ctx: AppContext, conversationId: string) => {
  let text = ''
  let saved = ''
  // The first save waits a full period too: a reply shorter than that never writes its text twice.
  let lastSaveAt = Date.now()
  let timer: NodeJS.Timeout | null = null
  let writing: Promise<void> | null = null
  let isDone = false

  const save = () => {
    timer = null
    if (isDone || writing || text === saved) return
    const snapshot = text
    lastSaveAt = Date.now()
    writing = store
      .saveReplyText(ctx.db, { id: conversationId, instanceId: ctx.instanceId, text: snapshot })
      .then(
        () => {
          saved = snapshot
        },
        (error: unknown) => ctx.logger.warn({ err: error, conversationId }, 'partial reply text not saved'),
      )
      .finally(() => {
        writing = null
        if (text !== saved) schedule()
      })
  }
  const schedule = () => {
    if (isDone || timer || writing) return
    const wait = Math.max(0, lastSaveAt + SAVE_EVERY_MS - Date.now())
    timer = setTimeout(save, wait)
    timer.unref()
  }
  return {
    append: (delta: string) => {
      text += delta
      schedule()
    },
    /** No more saves; waits for one in flight, so the reply's own record comes after it. */
    done: async () => {
      isDone = true
      if (timer) clearTimeout(timer)
      await writing
    },
  }
}
