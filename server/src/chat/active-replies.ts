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
