import type { Response } from 'express'
import type { AppContext } from '../context.ts'
import { coalescedReads, openEventStream } from '../http/sse.ts'
import { toBatchProgress } from './present.ts'
import { requireJob } from './service.ts'
import * as store from './store.ts'

/** A safety net under the signals: a lost pub/sub message delays an update by at most this. */
const REFRESH_MS = 15_000
const terminalStatuses = new Set(['completed', 'failed', 'cancelled'])

/**
 * GET /batch/{id}/events. Contacts change on worker instances; each change publishes
 * `batch.changed` through ctx.signals (Redis pub/sub between instances), and this stream answers
 * by reading the counters again. At most one read runs per stream, with at most one more queued,
 * so a job dialling hundreds of contacts a second costs each viewer a read at a time, not one per
 * change, and the last read always follows the last change. Polling alone would show changes late
 * and cost reads while nothing moves. The stream is registered under its API key, so revoking the
 * key closes it.
 */
export const streamBatchProgress = async (
  ctx: AppContext,
  {
    organizationId,
    batchJobId,
    keyId,
    res,
  }: { organizationId: string; batchJobId: string; keyId: string | null; res: Response },
) => {
  const job = await requireJob(ctx, organizationId, batchJobId)
  // Counted against the key's and the organization's open streams; a key's revocation ends its
  // streams, and a studio session's stream ends with the page.
  const slot = await ctx.streams.admit({ organizationId, keyId })
  const stream = openEventStream(res)
  slot.attach(stream)

  const sendProgress = async () => {
    const [current, counters] = await Promise.all([
      store.findJobById(ctx.db, job.id),
      store.countContacts(ctx.db, job.id),
    ])
    if (!current || stream.isClosed) return
    const progress = toBatchProgress(current, counters)
    stream.send('progress', progress)
    if (terminalStatuses.has(current.status)) {
      stream.send('end', progress)
      stream.close()
    }
  }
  const refresh = coalescedReads(stream, sendProgress, (error) =>
    ctx.logger.warn({ err: error, batchJobId }, 'could not read batch progress'),
  )

  const unsubscribe = ctx.signals.subscribe('batch.changed', (payload) => {
    if (payload.batchJobId === job.id) refresh()
  })
  // The stream's own heartbeat keeps it open; this re-reads in case a signal was lost.
  const timer = setInterval(refresh, REFRESH_MS)
  stream.onClose(() => {
    unsubscribe()
    clearInterval(timer)
  })
  refresh()
}
