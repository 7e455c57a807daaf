import type { Signals } from './signals.ts'
import type { EventStream } from './sse.ts'

export type StreamRegistry = {
  /** Tracks an open stream under the key that opened it until the stream closes. */
  register: (input: { keyId: string; stream: EventStream }) => () => void
  countOpen: (keyId: string) => number
}

export const KEY_REVOKED_MESSAGE = 'The API key of this session was revoked'

/**
 * Open SSE streams of this instance, by API key. When any instance revokes a key, every stream
 * opened with it gets the spec's `error` event and is closed.
 */
export const createStreamRegistry = ({ signals }: { signals: Signals }): StreamRegistry => {
  const byKey = new Map<string, Set<EventStream>>()
  signals.subscribe('key.revoked', ({ keyId }) => {
    const streams = byKey.get(keyId)
    byKey.delete(keyId)
    for (const stream of streams ?? []) {
      stream.send('error', { error: KEY_REVOKED_MESSAGE })
      stream.close()
    }
  })
  return {
    register: ({ keyId, stream }) => {
      const streams = byKey.get(keyId) ?? new Set()
      streams.add(stream)
      byKey.set(keyId, streams)
      const forget = () => {
        streams.delete(stream)
        if (streams.size === 0 && byKey.get(keyId) === streams) byKey.delete(keyId)
      }
      stream.onClose(forget)
      return forget
    },
    countOpen: (keyId) => byKey.get(keyId)?.size ?? 0,
  }
}
