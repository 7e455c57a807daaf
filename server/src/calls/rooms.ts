import type { AppContext } from '../context.ts'

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
