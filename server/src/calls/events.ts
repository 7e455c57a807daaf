import type { CallEvent, CallEventType } from '@parley/shared'
import type { Response } from 'express'
import type { AppContext } from '../context.ts'
import type { Executor } from '../db/index.ts'
import { AppError } from '../http/app-error.ts'
import { coalescedReads, openEventStream } from '../http/sse.ts'
import * as store from './store.ts'

/**
 * What happens on a call, in order, stored (call_events, migration 0045) so that a stream resumed
 * with Last-Event-ID on any instance misses nothing: the row's id is the event's `id:` line. Each
 * write publishes `call.event` (Redis pub/sub between instances) and the streams read what is new.
 */

/** A safety net under the signals: a lost pub/sub message delays an event by at most this. */
const REFRESH_MS = 5_000
/** Events read per round trip of a stream. */
const PAGE = 500

export type NewCallEvent = { callId: string; type: CallEventType; data?: Record<string, unknown> }

/** Writes events in one statement (inside the caller's transaction when it passes one). */
export const insertCallEvents = async (db: Executor, events: NewCallEvent[]) => {
  if (events.length === 0) return
  await db
    .insertInto('call_events')
    .values(
      events.map(({ callId, type, data }) => ({ call_id: callId, type, data: JSON.stringify(data ?? {}) })),
    )
    .execute()
}

/** Tells every instance's streams that these calls have new events (after the commit). */
export const announceCallEvents = async (ctx: AppContext, callIds: Iterable<string>) => {
  for (const callId of new Set(callIds)) {
    await ctx.signals
      .publish('call.event', { callId })
      .catch((error: unknown) => ctx.logger.warn({ err: error, callId }, 'could not announce a call event'))
  }
}

export const recordCallEvent = async (ctx: AppContext, event: NewCallEvent) => {
  await insertCallEvents(ctx.db, [event])
  await announceCallEvents(ctx, [event.callId])
}

/** A call's progress before its conversation, in order; `ended` comes after all of them. */
const progressSteps = ['queued', 'dialing', 'ringing', 'answered'] as const
export type ProgressStep = (typeof progressSteps)[number]

/**
 * Records a step of an active call's progress once and in order, whoever says it (the server's
 * dial, the worker's view of the callee's `sip.callStatus`): nothing when the call already has this
 * step or a later one, or has closed. The call row's lock orders concurrent reports and the close.
 * Answers whether it wrote the event.
 */
export const recordCallProgress = async (
  ctx: AppContext,
  { callId, step, data = {} }: { callId: string; step: ProgressStep; data?: Record<string, unknown> },
) => {
  const written = await ctx.db.transaction().execute(async (tx) => {
    const call = await store.lockCall(tx, callId)
    if (call?.status !== 'active') return false
    const sameOrLater = [...progressSteps.slice(progressSteps.indexOf(step)), 'ended']
    const known = await tx
      .selectFrom('call_events')
      .select('id')
      .where('call_id', '=', callId)
      .where('type', 'in', sameOrLater)
      .executeTakeFirst()
    if (known) return false
    await insertCallEvents(tx, [{ callId, type: step, data }])
    return true
  })
  if (written) await announceCallEvents(ctx, [callId])
  return written
}

/** The `ended` events of calls that just closed, written in their closing transaction. */
export const endedEvents = (calls: store.CallRow[]): NewCallEvent[] =>
  calls.map((call) => ({
    callId: call.id,
    type: 'ended',
    data: {
      status: call.status,
      outcome: call.outcome,
      reason: call.endReason,
      sipStatus: call.sipStatus,
      amdVerdict: call.amdVerdict,
      durationSeconds: call.durationSeconds,
    },
  }))

const readEvents = (ctx: AppContext, { callId, after }: { callId: string; after: string }) =>
  ctx.db
    .selectFrom('call_events')
    .select(['id', 'type', 'data', 'created_at'])
    .where('call_id', '=', callId)
    .where('id', '>', after)
    .orderBy('id')
    .limit(PAGE)
    .execute()

/** Last-Event-ID as the stream's ids are written (digits); anything else starts from the beginning. */
const resumePoint = (lastEventId: string | undefined) =>
  lastEventId && /^\d{1,18}$/.test(lastEventId.trim()) ? lastEventId.trim() : '0'

/**
 * GET /v1/calls/{id}/events: the call's events so far (after Last-Event-ID when given), then each
 * new one as it happens; the stream ends after `ended`, or at once for a call that closed before
 * events were kept. Another organization's call answers 404. Registered under its API key, so
 * revoking the key closes it.
 */
export const streamCallEvents = async (
  ctx: AppContext,
  {
    organizationId,
    callId,
    keyId,
    lastEventId,
    res,
  }: { organizationId: string; callId: string; keyId: string | null; lastEventId?: string; res: Response },
) => {
  const call = await store.findCall(ctx.db, { organizationId, id: callId })
  if (!call) throw AppError.notFound('call')
  const slot = await ctx.streams.admit({ organizationId, keyId })
  const stream = openEventStream(res)
  slot.attach(stream)

  let after = resumePoint(lastEventId)
  const sendNew = async () => {
    for (;;) {
      const rows = await readEvents(ctx, { callId, after })
      for (const row of rows) {
        if (stream.isClosed) return
        after = String(row.id)
        const event: CallEvent = {
          id: after,
          type: row.type as CallEventType,
          callId,
          at: new Date(row.created_at).toISOString(),
          data: row.data,
        }
        stream.send(row.type, event, Number(row.id))
        if (row.type === 'ended') return stream.close()
      }
      if (rows.length < PAGE) break
    }
    // A call closed before its events were kept has no `ended` to wait for; one whose `ended`
    // waits for its worker's end (close.ts) has.
    const current = await store.findCallById(ctx.db, callId)
    if (current && current.status !== 'active' && current.endHeldUntil === null) {
      const ended = await ctx.db
        .selectFrom('call_events')
        .select('id')
        .where('call_id', '=', callId)
        .where('type', '=', 'ended')
        .executeTakeFirst()
      if (!ended) stream.close()
    }
  }
  const refresh = coalescedReads(stream, sendNew, (error) =>
    ctx.logger.warn({ err: error, callId }, 'could not read call events'),
  )
  const unsubscribe = ctx.signals.subscribe('call.event', (payload) => {
    if (payload.callId === callId) refresh()
  })
  const timer = setInterval(refresh, REFRESH_MS)
  stream.onClose(() => {
    unsubscribe()
    clearInterval(timer)
  })
  refresh()
}
