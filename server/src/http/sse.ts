import type { Response } from 'express'
import { countOpenStream } from '../metrics/index.ts'

export type EventStream = {
  /**
   * Writes one event: an `event:` line, a `data:` line of JSON, a blank line (the spec's framing).
   * `id` overrides the stream's own numbering (a replayed event keeps the id it first had).
   */
  send: (event: string, data: unknown, id?: number) => void
  close: () => void
  /** Runs once when the stream ends, whichever side ended it. */
  onClose: (listener: () => void) => void
  readonly isClosed: boolean
}

/** The spec's chat heartbeat: a comment line this often keeps idle streams open through proxies. */
export const HEARTBEAT_MS = 15_000

/**
 * Starts a Server-Sent Events response; headers go out at once so the client sees the stream open.
 * Every event carries an `id:` (1, 2, …) so a client can say where it stopped (Last-Event-ID).
 * A heartbeat comment goes out every `heartbeatMs` until the stream ends.
 */
export const openEventStream = (res: Response, { heartbeatMs = HEARTBEAT_MS } = {}): EventStream => {
  res.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    // nginx would otherwise buffer the stream.
    'X-Accel-Buffering': 'no',
  })
  res.flushHeaders()
  let isClosed = false
  let lastId = 0
  const heartbeat = setInterval(() => {
    if (!isClosed) res.write(': heartbeat\n\n')
  }, heartbeatMs)
  heartbeat.unref()
  const stopCounting = countOpenStream(res)
  res.once('close', () => {
    isClosed = true
    clearInterval(heartbeat)
    stopCounting()
  })
  return {
    send: (event, data, id) => {
      lastId = id ?? lastId + 1
      if (!isClosed) res.write(`id: ${lastId}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    },
    close: () => {
      if (isClosed) return
      isClosed = true
      clearInterval(heartbeat)
      res.end()
    },
    onClose: (listener) => {
      // 'close' fires after end() too, and when the client goes away.
      if (res.closed) listener()
      else res.once('close', listener)
    },
    get isClosed() {
      return isClosed
    },
  }
}

/**
 * A stream's re-read on demand: `read` never runs twice at once, and a call made while it runs
 * makes exactly one more run after it, however many calls came. Stops once the stream closes; a
 * failed read goes to `onError` and the next call reads again.
 */
export const coalescedReads = (
  stream: EventStream,
  read: () => Promise<void>,
  onError: (error: unknown) => void,
): (() => void) => {
  let isReading = false
  let isWanted = false
  return () => {
    isWanted = true
    if (isReading) return
    isReading = true
    void (async () => {
      try {
        while (isWanted && !stream.isClosed) {
          isWanted = false
          await read()
        }
      } catch (error) {
        onError(error)
      } finally {
        isReading = false
      }
    })()
  }
}
