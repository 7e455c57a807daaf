import type { AppContext } from '../context.ts'

/** Replies streaming on this instance, by conversation, so stop and end can abort them. */
type ActiveReplies = Map<string, AbortController>

const registries = new WeakMap<AppContext, ActiveReplies>()

const registryOf = (ctx: AppContext): ActiveReplies => {
  let replies = registries.get(ctx)
  if (!replies) {
    const created: ActiveReplies = new Map()
    // The stop endpoint or an end may land on another instance than the stream: signals carry it.
    ctx.signals.subscribe('chat.stop', ({ conversationId, reason }) => {
      created.get(conversationId)?.abort(reason)
    })
    registries.set(ctx, created)
    replies = created
  }
  return replies
}

/** Tracks a reply until `release` is called; its controller aborts with reason 'stopped' or 'ended'. */
export const trackReply = (ctx: AppContext, conversationId: string) => {
  const replies = registryOf(ctx)
  const controller = new AbortController()
  replies.set(conversationId, controller)
  return {
    controller,
    release: () => {
      if (replies.get(conversationId) === controller) replies.delete(conversationId)
    },
  }
}

/** Makes sure this instance listens for stops before any reply starts. */
export const listenForStops = (ctx: AppContext) => void registryOf(ctx)

/**
 * Resolves once no reply of this instance is still recording its outcome (or after `timeoutMs`).
 * A reply whose client went away keeps writing after its connection closed, so stopping the
 * server waits for it before closing the database under it.
 */
export const waitForActiveReplies = async (ctx: AppContext, { timeoutMs = 5000 } = {}) => {
  const replies = registries.get(ctx)
  const deadline = Date.now() + timeoutMs
  while (replies && replies.size > 0 && Date.now() < deadline) {
    for (const controller of replies.values()) controller.abort('ended')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
