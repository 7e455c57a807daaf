import type { AppContext } from '../context.ts'

/**
 * An instance silent this long (three missed heartbeats, INSTANCE_HEARTBEAT_MS each) is dead: its
 * replies and dial claims are taken over.
 */
export const deadAfterMs = (config: { instanceHeartbeatMs: number }) => 3 * config.instanceHeartbeatMs

/** Heartbeats since this moment say an instance lives. */
export const aliveAfter = (ctx: Pick<AppContext, 'config'>, now = Date.now()) =>
  new Date(now - deadAfterMs(ctx.config))

/** Whether instance `id` beat within the liveness window; this instance always lives. */
export const isInstanceAlive = async (ctx: AppContext, id: string) => {
  if (id === ctx.instanceId) return true
  const row = await ctx.db
    .selectFrom('server_instances')
    .select('id')
    .where('id', '=', id)
    .where('last_seen_at', '>=', aliveAfter(ctx))
    .executeTakeFirst()
  return row !== undefined
}

const beat = (ctx: AppContext) =>
  ctx.db
    .insertInto('server_instances')
    .values({ id: ctx.instanceId, last_seen_at: new Date() })
    .onConflict((oc) => oc.column('id').doUpdateSet({ last_seen_at: new Date() }))
    .execute()

/**
 * Writes this instance's heartbeat now and every INSTANCE_HEARTBEAT_MS, and removes instances silent for
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
  }, ctx.config.instanceHeartbeatMs)
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
