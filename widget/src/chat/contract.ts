/**
 * The chat API as the widget sees it (spec "Text chat" and "SSE events").
 * Written out here with type guards rather than imported from @parley/shared's zod schemas: zod must
 * never enter the bundle, and everything arriving over the network is untrusted until narrowed.
 */

export type ChatSession = {
  conversationId: string
  sessionToken: string
  agentName: string
  greeting: string | null
}

export type HistoryMessage = { role: 'user' | 'assistant'; content: string }

/** One event of the send-message stream, already narrowed. */
export type StreamEvent =
  | { type: 'stream_start'; agentName: string }
  | { type: 'chunk'; delta: string }
  | { type: 'tool_call'; name: string }
  | { type: 'tool_result'; name: string }
  | { type: 'handoff'; toAgent: string }
  | { type: 'stream_end'; endSession: boolean }
  | { type: 'error'; message: string }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null)

export const toSession = (body: unknown): ChatSession | null => {
  if (!isRecord(body)) return null
  const conversationId = text(body.conversation_id)
  const sessionToken = text(body.session_token)
  if (!conversationId || !sessionToken) return null
  return {
    conversationId,
    sessionToken,
    agentName: text(body.agent_name) ?? '',
    greeting: text(body.greeting),
  }
}

export const toHistory = (body: unknown): HistoryMessage[] => {
  if (!isRecord(body) || !Array.isArray(body.messages)) return []
  return body.messages.flatMap((message: unknown) => {
    if (!isRecord(message)) return []
    const content = text(message.content)
    const role = message.role
    return content !== null && (role === 'user' || role === 'assistant') ? [{ role, content }] : []
  })
}

/** Reads one SSE frame (event name + JSON data); unknown or malformed frames give null and are skipped. */
export const toStreamEvent = (event: string, data: string): StreamEvent | null => {
  let body: unknown
  try {
    body = JSON.parse(data)
  } catch {
    return null
  }
  if (!isRecord(body)) return null
  switch (event) {
    case 'stream_start':
      return { type: event, agentName: text(body.agent_name) ?? '' }
    case 'chunk': {
      const delta = text(body.delta)
      return delta === null ? null : { type: event, delta }
    }
    case 'tool_call':
    case 'tool_result':
      return { type: event, name: text(body.name) ?? '' }
    case 'handoff': {
      // The spec names two shapes: {from_agent, to_agent} and {to}.
      const toAgent = text(body.to_agent) ?? text(body.to)
      return toAgent === null ? null : { type: event, toAgent }
    }
    case 'stream_end':
      return { type: event, endSession: body.end_session === true }
    case 'error':
      return { type: event, message: text(body.error) ?? '' }
    default:
      return null
  }
}

/** The `{detail, code}` error body of the chat API, if that is what arrived. */
export const toErrorCode = (body: unknown): string | null => (isRecord(body) ? text(body.code) : null)
