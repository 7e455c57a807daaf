/** One parsed SSE event: the spec's framing is an `event:` line and a JSON `data:` line. */
export type SseEvent = { event: string; data: unknown; id?: string }

/**
 * Reads a text/event-stream body event by event; `next()` resolves null when the stream ends.
 * `withIds` adds each event's `id:` line.
 */
export const readEvents = (response: Response, { withIds = false } = {}) => {
  if (!response.body) throw new Error('no body')
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  const next = async (): Promise<SseEvent | null> => {
    for (;;) {
      const end = buffer.indexOf('\n\n')
      if (end >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const fields = Object.fromEntries(
          block
            .split('\n')
            .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
        )
        const event: SseEvent = { event: fields.event ?? 'message', data: JSON.parse(fields.data ?? 'null') }
        return withIds && fields.id !== undefined ? { ...event, id: fields.id } : event
      }
      const chunk = await reader.read()
      if (chunk.done) return null
      buffer += chunk.value
    }
  }
  return { next, cancel: () => reader.cancel() }
}
