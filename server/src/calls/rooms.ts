import type { AppContext } from '../context.ts'
import { closeCall } from './close.ts'
import { listActiveCallsOfKey } from './store.ts'

/**
 * Deletes a call's LiveKit room, which disconnects everyone in it (a SIP callee is hung up, the
 * worker's job ends). A failure is logged, not thrown: the call is closed and billed already, and
 * LiveKit closes an empty room by itself.
 */
export const deleteCallRoom = async (
  ctx: AppContext,
  { roomName, why }: { roomName: string; why: string },
) => {
  await ctx.livekit?.deleteRoom(roomName).catch((error: unknown) => {
    ctx.logger.warn({ err: error, roomName }, `could not delete the room of ${why}`)
  })
}

/**
 * A revoked key's sessions end (spec "API key"): each live voice call it opened is closed
 * (`key_revoked`, billed up to now) and its room deleted, which disconnects the visitor and
 * the agent.
 */
export const endCallsOfKey = async (ctx: AppContext, keyId: string) => {
  const calls = await listActiveCallsOfKey(ctx.db, keyId)
  await Promise.all(
    calls.map(async ({ roomName }) => {
      await closeCall(ctx, { roomName, reason: 'key_revoked' })
      await deleteCallRoom(ctx, { roomName, why: 'a call of a revoked key' })
    }),
  )
}
