import type { AppContext } from '../context.ts'

/** How often an instance says it is alive. */
export const HEARTBEAT_MS = 2_000
/** An instance silent this long is dead: its replies are taken over (three missed heartbeats). */
export const DEAD_AFTER_MS = 3 * HEARTBEAT_MS

const beat = (ctx: AppContext) =>
  ctx.db
    .insertInto('server_instances')
    .values({ id: ctx.instanceId, last_seen_at: new Date() })
    .onConflict((oc) => oc.column('id').doUpdateSet({ last_seen_at: new Date() }))
    .execute()

/**
 * Writes this instance's heartbeat now and every HEARTBEAT_MS, and removes instances silent for
 * an hour (nothing refers to them for longer). A graceful stop deletes the row: its replies have
 * finished by then. Returns the function that stops it.
 */
export const startHeartbeat = async (ctx: AppContext): Promise<() => Promise<void>> => {
  await beat(ctx)
  const timer = setInterval(() => {
    beat(ctx)
      .then(() =>
        ctx.db
          .deleteFrom('server_instances')
          .where('last_seen_at', '<', new Date(Date.now() - 60 * 60 * 1000))
          .execute(),
      )
      .catch((error: unknown) => ctx.logger.warn({ err: error }, 'could not write the instance heartbeat'))
  }, HEARTBEAT_MS)
  timer.unref()
  return async () => {
    clearInterval(timer)
    await ctx.db
      .deleteFrom('server_instances')
      .where('id', '=', ctx.instanceId)
      .execute()
      .catch(() => undefined)
  }
}
