import type { AppContext } from '../context.ts'
import { purgeExpired } from './store.ts'

const PURGE_EVERY_MS = 60 * 60 * 1000

/**
 * Drops expired idempotency keys hourly (a key is also freed lazily when reused after 24 h).
 * Every instance may run it; the DELETE is idempotent. Returns the function that stops it.
 */
export const startIdempotencyHousekeeping = (ctx: AppContext): (() => void) => {
  const timer = setInterval(() => {
    purgeExpired(ctx.db).then(
      (count) => count > 0 && ctx.logger.info({ count }, 'expired idempotency keys purged'),
      (error: unknown) => ctx.logger.warn({ err: error }, 'could not purge idempotency keys'),
    )
  }, PURGE_EVERY_MS)
  timer.unref()
  return () => clearInterval(timer)
}
