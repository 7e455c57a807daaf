import type { CallEvent } from '@parley/shared'
import { EventSourceParserStream } from 'eventsource-parser/stream'
import { session } from '../api.ts'
import { FIRST_RETRY_MS, isLasting, LAST_RETRY_MS, pause, refusalOf } from '../event-stream.ts'

/**
 * Follows GET /v1/calls/{id}/events with the session's token (EventSource cannot send it, so the
 * stream is read with fetch and parsed by eventsource-parser). A dropped connection is opened
 * again after a growing wait with the last event's id as Last-Event-ID, so nothing is missed or
 * shown twice. Ends after `ended`, at a refusal (`onError`), or when the returned function is called.
 */
export const followCallEvents = ({
  callId,
  onEvent,
  onError,
}: {
  callId: string
  onEvent: (event: CallEvent) => void
  onError: (error: unknown) => void
}) => {
  const controller = new AbortController()
  const { signal } = controller
  let lastEventId: string | undefined

  /** One connection; true once the call ended. */
  const readOnce = async () => {
    const response = await fetch(`/v1/calls/${encodeURIComponent(callId)}/events`, {
      headers: {
        accept: 'text/event-stream',
        ...(session.value ? { authorization: `Bearer ${session.value.token}` } : {}),
        ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
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
      const event = JSON.parse(value.data) as CallEvent
      if (value.id) lastEventId = value.id
      onEvent(event)
      if (event.type === 'ended') return true
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
