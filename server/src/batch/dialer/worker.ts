import type { AppContext } from '../../context.ts'
import { announceJobChange } from '../service.ts'
import { type Launch, runClaimRound, type TargetCache } from './claim-round.ts'
import { dialContact } from './dial-contact.ts'
import { recoverStaleClaims } from './recover.ts'
import * as store from './store.ts'

/** How long stop() waits for dials still ringing; their claims are recovered by another worker. */
const STOP_GRACE_MS = 10_000
/**
 * A job's next claim round waits this long after its previous one: the calls that finish
 * meanwhile free their slots for one round instead of a round each (a round is a transaction of
 * four statements whatever it claims).
 */
const ROUND_GAP_MS = 25

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export type Dialer = {
  /** Runs one sweep now: starts due jobs, recovers stale claims, looks at every running job. */
  tick: () => Promise<void>
  stop: () => Promise<void>
}

/**
 * The dialing side of a worker (ROLE worker or all). Work arrives two ways: `batch.changed`
 * signals (a job started, resumed, a contact finished, on any instance) wake a claim round for that
 * job at once, and a sweep every BATCH_TICK_MS finds what no signal announces (scheduled starts,
 * retries coming due, windows opening, claims of a dead worker). Every step is a guarded SQL
 * claim or transition, so any number of workers may run this side by side.
 */
export const startDialer = (ctx: AppContext): Dialer => {
  const dials = new Set<Promise<void>>()
  const rounds = new Set<Promise<void>>()
  // A job with a round running gets at most one more pass after it, however many signals arrive.
  const wanted = new Map<string, boolean>()
  const targets: TargetCache = new Map()
  let isStopping = false

  /** Keeps a promise (which never rejects) in `set` until it settles, for stop() to wait on. */
  const track = (set: Set<Promise<void>>, promise: Promise<void>) => {
    set.add(promise)
    void promise.finally(() => set.delete(promise))
  }

  const launch: Launch = (input) => {
    const jobId = input.target.job.id
    const dial = dialContact(ctx, input).then(
      (isSlotFree) => {
        if (isSlotFree) void announceJobChange(ctx, jobId)
      },
      (error: unknown) => {
        ctx.logger.error({ err: error, batchJobId: jobId }, 'batch dial failed')
        void announceJobChange(ctx, jobId)
      },
    )
    track(dials, dial)
  }

  const roundOf = new Map<string, Promise<void>>()
  /** Runs claim rounds for the job until one finds nothing new; resolves when they are done. */
  const wake = (jobId: string): Promise<void> => {
    if (isStopping) return Promise.resolve()
    wanted.set(jobId, true)
    const running = roundOf.get(jobId)
    if (running) return running
    const round = (async () => {
      try {
        let isFirst = true
        while (wanted.get(jobId) && !isStopping) {
          if (!isFirst) await sleep(ROUND_GAP_MS)
          isFirst = false
          wanted.set(jobId, false)
          if (await runClaimRound(ctx, { jobId, launch, targets })) void announceJobChange(ctx, jobId)
        }
      } catch (error) {
        ctx.logger.error({ err: error, batchJobId: jobId }, 'batch claim round failed')
      } finally {
        wanted.delete(jobId)
        roundOf.delete(jobId)
      }
    })()
    roundOf.set(jobId, round)
    track(rounds, round)
    return round
  }

  // Looking for lost claims scans unfinished attempts. A claim is lost once its instance stops
  // beating (three missed heartbeats) or after BATCH_STALE_CLAIM_MS, so looking once a heartbeat
  // finds a dead worker's claims within a heartbeat of its death being known.
  const recoveryEveryMs = Math.max(
    ctx.config.batchTickMs,
    Math.min(ctx.config.batchStaleClaimMs / 4, ctx.config.instanceHeartbeatMs),
  )
  let nextRecoveryAt = 0
  const sweep = async () => {
    const now = ctx.clock.now()
    for (const jobId of await store.listStartableJobIds(ctx.db, { now })) {
      if (await store.startJob(ctx.db, { id: jobId, now })) await announceJobChange(ctx, jobId)
    }
    if (performance.now() >= nextRecoveryAt) {
      nextRecoveryAt = performance.now() + recoveryEveryMs
      for (const jobId of await recoverStaleClaims(ctx)) await announceJobChange(ctx, jobId)
    }
    await Promise.all((await store.listRunningJobIds(ctx.db)).map(wake))
  }

  // One sweep at a time; a tick during a sweep queues one more, which starts after it (and so sees
  // everything that happened before the tick, such as a moved test clock).
  let sweeping: Promise<void> | null = null
  let queued: Promise<void> | null = null
  const runSweep = (): Promise<void> => {
    const run: Promise<void> = sweep()
      .catch((error: unknown) => ctx.logger.error({ err: error }, 'batch sweep failed'))
      .finally(() => {
        if (sweeping === run) sweeping = null
      })
    sweeping = run
    return run
  }
  const tick = (): Promise<void> => {
    if (queued) return queued
    if (!sweeping) return runSweep()
    const next: Promise<void> = sweeping.then(() => {
      queued = null
      return runSweep()
    })
    queued = next
    return next
  }

  const unsubscribe = ctx.signals.subscribe('batch.changed', ({ batchJobId }) => void wake(batchJobId))
  const timer = setInterval(() => void tick(), ctx.config.batchTickMs)
  timer.unref()

  return {
    tick,
    stop: async () => {
      isStopping = true
      clearInterval(timer)
      unsubscribe()
      const settled = Promise.allSettled([sweeping, queued, ...rounds, ...dials]).then(() =>
        Promise.allSettled([...dials]),
      )
      let timeout: NodeJS.Timeout | undefined
      await Promise.race([settled, new Promise((resolve) => (timeout = setTimeout(resolve, STOP_GRACE_MS)))])
      clearTimeout(timeout)
    },
  }
}
