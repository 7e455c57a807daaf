import type { BatchProgressEvent } from '@parley/shared'
import { EventSourceParserStream } from 'eventsource-parser/stream'
import { ApiError, session, signOut } from '../api.ts'

/** Waits between reconnections: doubled each failure, up to the server's heartbeat period. */
const FIRST_RETRY_MS = 500
const LAST_RETRY_MS = 15_000

const isProgress = (value: unknown): value is BatchProgressEvent =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as BatchProgressEvent).status === 'string' &&
  typeof (value as BatchProgressEvent).counters === 'object'

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve()
    })
  })

/** The API's refusal of the stream, in its words (the same shape api() throws). */
const refusalOf = async (response: Response) => {
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>
  if (response.status === 401 && session.value) signOut()
  return new ApiError(
    String(body.detail ?? body.error ?? `The server answered ${response.status}`),
    response.status,
    body.code as string | undefined,
    {},
  )
}

/** Whether trying again can help: the network, a restart, a rate limit; not a refusal. */
const isLasting = (error: unknown) =>
  error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 429

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
