import type { EventSourceMessage, fetchEventSource } from '@microsoft/fetch-event-source'
import { type Credentials, credentialHeader } from '../credentials.ts'
import {
  type ChatSession,
  type HistoryMessage,
  type StreamEvent,
  toErrorCode,
  toHistory,
  toSession,
  toStreamEvent,
} from './contract.ts'
import { visitorIdFor } from './storage.ts'

/** A refused request: the HTTP status, the spec's code and, for 429, the seconds to wait. */
export class TransportError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(`chat API answered ${status}${code ? ` (${code})` : ''}`)
  }
}

export type SendInput = {
  session: ChatSession
  message: string
  onEvent: (event: StreamEvent) => void
  signal: AbortSignal
}

/** Everything the chat model needs from the network; the unit tests pass a fake. */
export type ChatTransport = {
  createSession: (input: { agentId: string; userIdentifier?: string }) => Promise<ChatSession>
  history: (session: ChatSession) => Promise<HistoryMessage[]>
  /** Resolves after stream_end or an `error` event; rejects with TransportError when refused. */
  send: (input: SendInput) => Promise<void>
  end: (session: ChatSession) => Promise<void>
  /** Asks the server to stop generating the reply in progress (the stream is aborted separately). */
  stop: (session: ChatSession) => Promise<void>
}

const MAX_RESUMES = 5
const RESUME_DELAY_MS = 500

const readRetryAfter = (response: Response) => {
  const seconds = Number(response.headers.get('retry-after'))
  return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : null
}

const refuse = async (response: Response) => {
  const body: unknown = await response.json().catch(() => null)
  return new TransportError(response.status, toErrorCode(body), readRetryAfter(response))
}

/** A dropped connection, as opposed to a refusal: worth resuming. */
class StreamDropped extends Error {}

/** The SSE reader, fetched with the panel chunk: only a reply needs it, never the closed launcher. */
export type OpenStream = () => Promise<typeof fetchEventSource>

export const createHttpTransport = ({
  baseUrl,
  userHash,
  openStream,
  ...credentials
}: Credentials & {
  baseUrl: string
  userHash?: string | null
  openStream: OpenStream
}): ChatTransport => {
  const url = (path: string) => `${baseUrl.replace(/\/$/, '')}/v1/chat/sessions${path}`
  const bearer = (session: ChatSession) => ({ authorization: `Bearer ${session.sessionToken}` })
  const json = async (response: Response) => {
    if (!response.ok) throw await refuse(response)
    return response.json() as Promise<unknown>
  }

  return {
    createSession: async ({ agentId, userIdentifier }) => {
      const response = await fetch(url(''), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...credentialHeader(credentials) },
        body: JSON.stringify({
          agent_id: agentId,
          ...(credentials.draft && { agent_version: 'draft' }),
          ...(userIdentifier && {
            user_identifier: userIdentifier,
            visitor_id: visitorIdFor(baseUrl),
            ...(userHash && { user_hash: userHash }),
          }),
        }),
      })
      const session = toSession(await json(response))
      if (!session) throw new TransportError(response.status, 'malformed_response')
      return session
    },
    history: async (session) => {
      const response = await fetch(url(`/${session.conversationId}/messages?limit=100`), {
        headers: bearer(session),
      })
      return toHistory(await json(response))
    },
    end: async (session) => {
      await json(
        await fetch(url(`/${session.conversationId}/end`), { method: 'POST', headers: bearer(session) }),
      )
    },
    stop: async (session) => {
      await json(
        await fetch(url(`/${session.conversationId}/messages/stop`), {
          method: 'POST',
          headers: bearer(session),
        }),
      )
    },
    send: async ({ session, message, onEvent, signal }) => {
      // The same key on every resume makes the server continue the one reply instead of starting
      // another; fetch-event-source adds Last-Event-ID itself once an event carried an id.
      const idempotencyKey = crypto.randomUUID()
      const seen = new Set<string>()
      let resumes = 0
      let isFinished = false
      const handle = (frame: EventSourceMessage) => {
        // A server that replays from the start after a resume must not repeat a word.
        if (frame.id && seen.has(frame.id)) return
        if (frame.id) seen.add(frame.id)
        const event = toStreamEvent(frame.event, frame.data)
        if (!event) return
        if (event.type === 'stream_end' || event.type === 'error') isFinished = true
        onEvent(event)
      }
      // A chunk that cannot be fetched fails like the network it needed (the model's retry applies).
      const fetchEventSource = await openStream()
      // Stopped while it loaded: fetch-event-source would not notice a signal already aborted.
      if (signal.aborted) return
      return fetchEventSource(url(`/${session.conversationId}/messages`), {
        method: 'POST',
        headers: {
          ...bearer(session),
          'content-type': 'application/json',
          'idempotency-key': idempotencyKey,
        },
        body: JSON.stringify({ message }),
        signal,
        // Its default closes and reopens the stream when the tab hides, which would repeat a POST.
        openWhenHidden: true,
        onopen: async (response) => {
          if (!response.ok) throw await refuse(response)
          resumes = 0
        },
        onmessage: handle,
        onclose: () => {
          if (!isFinished) throw new StreamDropped()
        },
        onerror: (error: unknown) => {
          if (error instanceof TransportError) throw error
          if (++resumes > MAX_RESUMES) throw new TransportError(0, 'network_error')
          return RESUME_DELAY_MS
        },
      })
    },
  }
}
