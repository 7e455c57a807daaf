import { randomUUID } from 'node:crypto'
import type { AppendTranscriptBody } from '@parley/shared'
import type { WorkerApi } from './worker-api.ts'

type Line = NonNullable<AppendTranscriptBody['lines']>[number]
type ToolCall = NonNullable<AppendTranscriptBody['toolCalls']>[number]

/** The server's limits: lines and tool calls per request, characters per line. */
const MAX_LINES = 200
const MAX_TOOL_CALLS = 50
const MAX_CHARS = 10_000

export type TranscriptWriter = ReturnType<typeof createTranscriptWriter>

/**
 * Posts a call's finished turns and tool calls to the server as they happen, in the order they
 * were said: one request at a time, and what finishes meanwhile goes together in the next. Every
 * line and tool call carries an id, so a request the client retries (its answer lost) is stored
 * once. A batch that still fails is logged (counted, never its text) and the writer goes on with
 * the next, so one bad moment costs those lines, not the rest.
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
  const pendingLines: Line[] = []
  const pendingToolCalls: ToolCall[] = []
  let sending: Promise<void> | undefined

  const pump = () => {
    if (sending || pendingLines.length + pendingToolCalls.length === 0) return
    const lines = pendingLines.splice(0, MAX_LINES)
    const toolCalls = pendingToolCalls.splice(0, MAX_TOOL_CALLS)
    sending = api
      .appendTranscript(callId, { lines, toolCalls })
      .then(
        () => undefined,
        (error: unknown) => onLost({ lines: lines.length + toolCalls.length, error }),
      )
      .finally(() => {
        sending = undefined
        pump()
      })
  }

  return {
    /**
     * A finished turn; empty ones (an interruption before any word) are not lines. An agent's turn
     * the caller cut off is marked `interrupted` (its text is what was said before).
     */
    add: ({
      role,
      text,
      spokenAt,
      interrupted = false,
    }: {
      role: Line['role']
      text: string
      spokenAt: Date
      interrupted?: boolean
    }) => {
      const content = text.trim().slice(0, MAX_CHARS)
      if (content === '') return
      pendingLines.push({
        id: randomUUID(),
        role,
        content,
        spokenAt: spokenAt.toISOString(),
        ...(interrupted ? { interrupted: true } : {}),
      })
      pump()
    },
    /** A tool the agent called (its id: the model's call id, unique in the call). */
    toolCall: (toolCall: Omit<ToolCall, 'id'> & { id: string }) => {
      pendingToolCalls.push(toolCall)
      pump()
    },
    /** Resolves once everything added so far has been sent (or given up). */
    flush: async () => {
      while (sending) await sending
    },
  }
}
