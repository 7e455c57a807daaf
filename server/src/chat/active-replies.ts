import type { AppContext } from '../context.ts'

/** A reply streaming on this instance: its abort switch and who is following it. */
type ActiveReply = {
  controller: AbortController
  /** Null: the send had no Idempotency-Key, so nobody can resume it. */
  idempotencyKey: string | null
  listeners: number
  graceTimer: NodeJS.Timeout | null
}

/** Replies streaming on this instance, by conversation, so stop, end and resumes can reach them. */
type ActiveReplies = Map<string, ActiveReply>

const registries = new WeakMap<AppContext, ActiveReplies>()

/**
 * A reply nobody follows is aborted: at once when it cannot be resumed, otherwise after the resume
 * grace (CHAT_RESUME_GRACE_MS), unless a client comes back (on any instance) before then.
 */
const countListeners = (ctx: AppContext, reply: ActiveReply, change: 1 | -1) => {
  reply.listeners += change
  if (reply.graceTimer) clearTimeout(reply.graceTimer)
  reply.graceTimer = null
  if (reply.listeners > 0 || reply.controller.signal.aborted) return
  if (!reply.idempotencyKey) {
    reply.controller.abort('disconnected')
    return
  }
  reply.graceTimer = setTimeout(() => reply.controller.abort('disconnected'), ctx.config.chatResumeGraceMs)
  reply.graceTimer.unref()
}

const registryOf = (ctx: AppContext): ActiveReplies => {
  let replies = registries.get(ctx)
  if (!replies) {
    const created: ActiveReplies = new Map()
    // The stop endpoint or an end may land on another instance than the stream: signals carry it.
    ctx.signals.subscribe('chat.stop', ({ conversationId, reason }) => {
      created.get(conversationId)?.controller.abort(reason)
    })
    // So may a resume: it tells the instance generating the reply that a client follows it again.
    ctx.signals.subscribe('chat.listeners', ({ conversationId, idempotencyKey, change }) => {
      const reply = created.get(conversationId)
      if (reply && reply.idempotencyKey === idempotencyKey) countListeners(ctx, reply, change)
    })
    registries.set(ctx, created)
    replies = created
  }
  return replies
}

/**
 * Tracks a reply until `release` is called; its controller aborts with reason 'stopped', 'ended'
 * or 'disconnected'. The client that sent it is its first listener; `leave` says it went away.
 */
export const trackReply = (
  ctx: AppContext,
  {
    conversationId,
    idempotencyKey,
    controller = new AbortController(),
  }: { conversationId: string; idempotencyKey: string | null; controller?: AbortController },
) => {
  const replies = registryOf(ctx)
  const reply: ActiveReply = {
    controller,
    idempotencyKey,
    listeners: 1,
    graceTimer: null,
  }
  replies.set(conversationId, reply)
  // Methods, not arrow properties: see checkpoint.ts.
  return {
    controller: reply.controller,
    leave() {
      countListeners(ctx, reply, -1)
    },
    release() {
      if (reply.graceTimer) clearTimeout(reply.graceTimer)
      if (replies.get(conversationId) === reply) replies.delete(conversationId)
    },
  }
}

/** How many replies of this instance have not yet recorded their outcome (the chat bench waits on it). */
export const countActiveReplies = (ctx: AppContext) => registries.get(ctx)?.size ?? 0

/** Makes sure this instance listens for stops and resumes before any reply starts. */
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
    for (const reply of replies.values()) reply.controller.abort('ended')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
