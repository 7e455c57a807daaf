import { createHash } from 'node:crypto'
import type { Response } from 'express'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { openEventStream } from '../http/sse.ts'
import type { StreamSlot } from '../http/streams.ts'
import { isInstanceAlive } from '../instances/liveness.ts'
import { type ReplyOwner, type ReplyScope, replyLogOf } from './reply-log.ts'

const hashMessage = (message: string) => createHash('sha256').update(message).digest('hex')

/** What a resume hears when the instance generating its reply died before the reply ended. */
export const REPLY_CUT_OFF_MESSAGE =
  'The reply was cut off when its server stopped; please send your message again'

/**
 * Takes the send's Idempotency-Key for a new reply on this instance (null), or finds the reply it
 * already names (its owner, to resume it). The same key with another message is refused: it
 * cannot be the same send.
 */
export const reserveReply = async (
  ctx: AppContext,
  { scope, message }: { scope: ReplyScope; message: string },
): Promise<ReplyOwner | null> => {
  const requestHash = hashMessage(message)
  const { heldBy } = await replyLogOf(ctx).reserve(scope, { requestHash, instanceId: ctx.instanceId })
  if (heldBy === null) return null
  if (heldBy.requestHash !== requestHash)
    throw AppError.conflict(
      'This Idempotency-Key was already used with another message; send a new message with a new key',
      'idempotency_key_reused',
    )
  return heldBy
}

/**
 * A retry of a resumable send: replays the reply's events after `afterId` with their first ids,
 * then follows it live until it ends. While this client follows, the instance generating the
 * reply (whichever it is) keeps going instead of aborting it for lack of a listener. If that
 * instance dies (no heartbeat for the liveness window), nothing more will come: the follower
 * hears what was logged, then an `error`, instead of waiting out the log's retention.
 */
export const followReply = async (
  ctx: AppContext,
  {
    scope,
    owner,
    afterId,
    res,
    slot,
  }: { scope: ReplyScope; owner: ReplyOwner; afterId: number; res: Response; slot: StreamSlot },
) => {
  res.set('Idempotent-Replayed', 'true')
  const stream = openEventStream(res)
  slot.attach(stream)
  const gone = new AbortController()
  stream.onClose(() => gone.abort())
  const listeners = { conversationId: scope.conversationId, idempotencyKey: scope.idempotencyKey }
  await ctx.signals.publish('chat.listeners', { ...listeners, change: 1 })
  const { instanceId } = owner
  let isCutOff = false
  let lastId = afterId
  try {
    const events = replyLogOf(ctx).follow({
      scope,
      afterId,
      signal: gone.signal,
      checkEveryMs: ctx.config.instanceHeartbeatMs,
      ...(instanceId &&
        instanceId !== ctx.instanceId && {
          isCutOff: async () => {
            isCutOff = !(await isInstanceAlive(ctx, instanceId))
            return isCutOff
          },
        }),
    })
    for await (const { id, event, data } of events) {
      stream.send(event, data, id)
      lastId = id
    }
    if (isCutOff && !stream.isClosed) {
      ctx.logger.warn({ conversationId: scope.conversationId, instanceId }, 'a resumed reply was cut off')
      stream.send('error', { error: REPLY_CUT_OFF_MESSAGE }, lastId + 1)
    }
  } catch (error) {
    ctx.logger.warn({ err: error, conversationId: scope.conversationId }, 'could not follow a resumed reply')
    if (!stream.isClosed) stream.send('error', { error: 'The reply could not be resumed; please send again' })
  } finally {
    stream.close()
    await ctx.signals.publish('chat.listeners', { ...listeners, change: -1 })
  }
}
