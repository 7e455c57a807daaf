import type { BatchProgressEvent } from '@parley/shared'
import { EventSourceParserStream } from 'eventsource-parser/stream'
import { session } from '../api.ts'
import { FIRST_RETRY_MS, isLasting, LAST_RETRY_MS, pause, refusalOf } from '../event-stream.ts'

const isProgress = (value: unknown): value is BatchProgressEvent =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as BatchProgressEvent).status === 'string' &&
  typeof (value as BatchProgressEvent).counters === 'object'

/**
 * Follows GET /batch/{id}/events. EventSource cannot send the session's Authorization header, so
 * the stream is read with fetch and parsed by eventsource-parser. Each connection opens with the
 * job's whole state (a `progress` event), so a dropped connection is simply opened again, after a
 * growing wait, and nothing is missed (no Last-Event-ID needed: the server's ids count events of
 * one connection). Ends at the `end` event, at a refusal (`onError`), or when the returned stop
 * function is called.
 */
export const followProgress = ({
  batchJobId,
  onProgress,
  onEnd,
  onError,
}: {
  batchJobId: string
  onProgress: (progress: BatchProgressEvent) => void
  onEnd: (progress: BatchProgressEvent) => void
  onError: (error: unknown) => void
}) => {
  const controller = new AbortController()
  const { signal } = controller

  /** One connection; true when the job ended. */
  const readOnce = async () => {
    const response = await fetch(`/batch/${encodeURIComponent(batchJobId)}/events`, {
      headers: {
        accept: 'text/event-stream',
        ...(session.value ? { authorization: `Bearer ${session.value.token}` } : {}),
      },
      signal,
    })
    if (!response.ok || !response.body) throw await refusalOf(response)
    const reader = response.body
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream())
      .getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return false
      const data = JSON.parse(value.data) as unknown
      if (!isProgress(data)) continue
      if (value.event === 'end') {
        onEnd(data)
        return true
      }
      if (value.event === 'progress') onProgress(data)
    }
  }

  void (async () => {
    let wait = FIRST_RETRY_MS
    while (!signal.aborted) {
      try {
        if (await readOnce()) return
        wait = FIRST_RETRY_MS
      } catch (error) {
        if (signal.aborted) return
        if (isLasting(error)) {
          onError(error)
          return
        }
        wait = Math.min(wait * 2, LAST_RETRY_MS)
      }
      await pause(wait, signal)
    }
  })()
  return () => controller.abort()
}
