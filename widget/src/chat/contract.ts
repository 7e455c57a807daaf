/**
 * The chat API as the widget sees it (spec "Text chat" and "SSE events").
 * The wire shapes come from @parley/shared as types only (zod must never enter the bundle); small
 * guards narrow what arrives, since everything from the network is untrusted until checked.
 */
import type { ChatHistory, ChatStreamEvents, ChatSession as WireSession } from '@parley/shared'

/** The longest message the API takes (spec "Send message"): the composer counts towards it. */
export const MAX_MESSAGE_LENGTH = 10_000

/** A wire shape whose fields have not been checked yet: renaming a field in shared/ breaks these guards. */
type Unchecked<T> = { [K in keyof T]?: unknown }

export type ChatSession = {
  conversationId: string
  sessionToken: string
  agentName: string
  greeting: string | null
  /** The deployment has no voice (`voice_available: false`): the microphone is not offered. */
  isVoiceOff?: boolean
}

/** A knowledge source a reply was given; `url` is http(s) or null. */
export type ReplySource = { title: string; url: string | null }

/** `isSpoken`: said in a voice call that continued the conversation, not typed. */
export type HistoryMessage = {
  role: 'user' | 'assistant'
  content: string
  isSpoken: boolean
  sources?: ReplySource[]
}

/** One event of the send-message stream, already narrowed. */
export type StreamEvent =
  | { type: 'stream_start'; agentName: string }
  | { type: 'chunk'; delta: string }
  | { type: 'tool_call'; name: string }
  | { type: 'tool_result'; name: string }
  | { type: 'handoff'; toAgent: string }
  | { type: 'sources'; sources: ReplySource[] }
  | { type: 'stream_end'; endSession: boolean }
  | { type: 'error'; message: string }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null)

/** Sources as they arrive: titles kept, any URL but http(s) dropped (never a javascript: link). */
const toSources = (value: unknown): ReplySource[] =>
  Array.isArray(value)
    ? value.flatMap((item: unknown) => {
        if (!isRecord(item)) return []
        const title = text(item.title)
        const url = text(item.url)
        return title ? [{ title, url: url && /^https?:\/\//i.test(url) ? url : null }] : []
      })
    : []

export const toSession = (value: unknown): ChatSession | null => {
  if (!isRecord(value)) return null
  const body: Unchecked<WireSession> = value
  const conversationId = text(body.conversation_id)
  const sessionToken = text(body.session_token)
  if (!conversationId || !sessionToken) return null
  return {
    conversationId,
    sessionToken,
    agentName: text(body.agent_name) ?? '',
    greeting: text(body.greeting),
    isVoiceOff: body.voice_available === false,
  }
}

export const toHistory = (value: unknown): HistoryMessage[] => {
  const body: Unchecked<ChatHistory> | null = isRecord(value) ? value : null
  if (!body || !Array.isArray(body.messages)) return []
  return body.messages.flatMap((item: unknown) => {
    if (!isRecord(item)) return []
    const message: Unchecked<ChatHistory['messages'][number]> = item
    const content = text(message.content)
    const role = message.role
    return content !== null && (role === 'user' || role === 'assistant')
      ? [{ role, content, isSpoken: message.channel === 'voice', sources: toSources(message.sources) }]
      : []
  })
}

/** Reads one SSE frame (event name + JSON data); unknown or malformed frames give null and are skipped. */
export const toStreamEvent = (event: string, data: string): StreamEvent | null => {
  let parsed: unknown
  try {
    parsed = JSON.parse(data)
  } catch {
    return null
  }
  if (!isRecord(parsed)) return null
  // The fields of every event's data in the contract, none checked yet ({to} is the spec's other handoff shape).
  const body: Unchecked<ChatStreamEvents['handoff']> &
    Unchecked<ChatStreamEvents['chunk']> &
    Unchecked<ChatStreamEvents['stream_start']> &
    Unchecked<ChatStreamEvents['tool_call']> &
    Unchecked<ChatStreamEvents['stream_end']> &
    Unchecked<ChatStreamEvents['error']> &
    Unchecked<ChatStreamEvents['sources']> & { to?: unknown } = parsed
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
    case 'sources':
      return { type: event, sources: toSources(body.sources) }
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
