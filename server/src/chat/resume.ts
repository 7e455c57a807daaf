import { createHash } from 'node:crypto'
import type { Response } from 'express'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { openEventStream } from '../http/sse.ts'
import { type ReplyScope, replyLogOf } from './reply-log.ts'

const hashMessage = (message: string) => createHash('sha256').update(message).digest('hex')

/**
 * Takes the send's Idempotency-Key for a new reply ('new'), or finds the reply it already names
 * ('resume'). The same key with another message is refused: it cannot be the same send.
 */
export const reserveReply = async (
  ctx: AppContext,
  { scope, message }: { scope: ReplyScope; message: string },
): Promise<'new' | 'resume'> => {
  const requestHash = hashMessage(message)
  const { heldBy } = await replyLogOf(ctx).reserve(scope, requestHash)
  if (heldBy === null) return 'new'
  if (heldBy !== requestHash)
    throw AppError.conflict(
      'This Idempotency-Key was already used with another message; send a new message with a new key',
      'idempotency_key_reused',
    )
  return 'resume'
}

/**
 * A retry of a resumable send: replays the reply's events after `afterId` with their first ids,
 * then follows it live until it ends. While this client follows, the instance generating the
 * reply (whichever it is) keeps going instead of aborting it for lack of a listener.
 */
export const followReply = async (
  ctx: AppContext,
  { scope, afterId, res }: { scope: ReplyScope; afterId: number; res: Response },
) => {
  res.set('Idempotent-Replayed', 'true')
  const stream = openEventStream(res)
  const gone = new AbortController()
  stream.onClose(() => gone.abort())
  const listeners = { conversationId: scope.conversationId, idempotencyKey: scope.idempotencyKey }
  await ctx.signals.publish('chat.listeners', { ...listeners, change: 1 })
  try {
    for await (const { id, event, data } of replyLogOf(ctx).follow(scope, afterId, gone.signal))
      stream.send(event, data, id)
  } catch (error) {
    ctx.logger.warn({ err: error, conversationId: scope.conversationId }, 'could not follow a resumed reply')
    if (!stream.isClosed) stream.send('error', { error: 'The reply could not be resumed; please send again' })
  } finally {
    stream.close()
    await ctx.signals.publish('chat.listeners', { ...listeners, change: -1 })
  }
}
