import type { AppendTranscript } from '@parley/shared'
import type { WorkerApi } from './worker-api.ts'

type Line = AppendTranscript['lines'][number]

/** The server's limits: lines per request and characters per line. */
const MAX_LINES = 200
const MAX_CHARS = 10_000

export type TranscriptWriter = ReturnType<typeof createTranscriptWriter>

/**
 * Posts a call's finished turns to its transcript as they happen, in the order they were said:
 * one request at a time, and the turns that finish meanwhile go together in the next. The client
 * retries a failed request with back-off; a batch that still fails is logged (counted, never its
 * text) and the writer goes on with the next, so one bad moment costs those lines, not the rest.
 */
export const createTranscriptWriter = ({
  callId,
  api,
  onLost,
}: {
  callId: string
  api: Pick<WorkerApi, 'appendTranscript'>
  onLost: (details: { lines: number; error: unknown }) => void
}) => {
  const pending: Line[] = []
  let sending: Promise<void> | undefined

  const pump = () => {
    if (sending || pending.length === 0) return
    const lines = pending.splice(0, MAX_LINES)
    sending = api
      .appendTranscript(callId, { lines })
      .then(
        () => undefined,
        (error: unknown) => onLost({ lines: lines.length, error }),
      )
      .finally(() => {
        sending = undefined
        pump()
      })
  }

  return {
    /** A finished turn; empty ones (an interruption before any word) are not lines. */
    add: ({ role, text, spokenAt }: { role: Line['role']; text: string; spokenAt: Date }) => {
      const content = text.trim().slice(0, MAX_CHARS)
      if (content === '') return
      pending.push({ role, content, spokenAt: spokenAt.toISOString() })
      pump()
    },
    /** Resolves once every line added so far has been sent (or given up). */
    flush: async () => {
      while (sending) await sending
    },
  }
}
