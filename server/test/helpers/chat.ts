import type { ChatSession, ChatStreamEventName } from '@parley/shared'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import type { TestServer } from './test-server.ts'

export type ChatEvent = { id: string | undefined; event: ChatStreamEventName; data: Record<string, unknown> }

/** Reads a whole send-message stream with eventsource-parser (a real SSE client library). */
export const readChatStream = async (response: Response, onEvent?: (event: ChatEvent) => void) => {
  if (!response.body) throw new Error('no body')
  const events: ChatEvent[] = []
  const parser = createParser({
    onEvent: (message: EventSourceMessage) => {
      const event = {
        id: message.id,
        event: message.event as ChatStreamEventName,
        data: JSON.parse(message.data),
      }
      events.push(event)
      onEvent?.(event)
    },
  })
  const decoder = new TextDecoder()
  for await (const part of response.body) parser.feed(decoder.decode(part as Uint8Array, { stream: true }))
  return events
}

export const createChatSession = async (
  server: TestServer,
  {
    key,
    agentId,
    origin,
    ...rest
  }: {
    key: string
    agentId: string
    origin?: string
    user_identifier?: string
    metadata?: Record<string, unknown>
  },
) => {
  const response = await server.request('/v1/chat/sessions', {
    method: 'POST',
    headers: { 'x-api-key': key, ...(origin ? { origin } : {}) },
    json: { agent_id: agentId, ...rest },
  })
  if (response.status !== 200)
    throw new Error(`session creation failed: ${response.status} ${await response.text()}`)
  return (await response.json()) as ChatSession
}

export const chatCall = (
  server: TestServer,
  session: Pick<ChatSession, 'conversation_id' | 'session_token'>,
  action: 'messages' | 'end' | 'messages/stop' | 'history',
  init: { json?: unknown; query?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
) =>
  server.request(
    `/v1/chat/sessions/${session.conversation_id}/${action === 'history' ? 'messages' : action}${init.query ?? ''}`,
    {
      method: action === 'history' ? 'GET' : 'POST',
      token: session.session_token,
      ...(init.json !== undefined ? { json: init.json } : {}),
      ...(init.headers ? { headers: init.headers } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
    },
  )

/** Sends a message and reads the whole reply stream. */
export const sendChat = async (
  server: TestServer,
  session: Pick<ChatSession, 'conversation_id' | 'session_token'>,
  message: string,
) => {
  const response = await chatCall(server, session, 'messages', { json: { message } })
  if (response.status !== 200) throw new Error(`send failed: ${response.status} ${await response.text()}`)
  return { response, events: await readChatStream(response) }
}

export const textOf = (events: ChatEvent[]) =>
  events
    .filter((event) => event.event === 'chunk')
    .map((event) => event.data.delta)
    .join('')

/** A text agent made through the v1 API with the given secret key. */
export const createTextAgent = async (server: TestServer, key: string, name = 'Chat Agent') => {
  const response = await server.request('/v1/agents', {
    method: 'POST',
    headers: { 'x-api-key': key },
    json: { name, agentArchitecture: 'text', model: 'gpt-4o-mini', systemPrompt: 'You help.' },
  })
  if (response.status !== 201 && response.status !== 200)
    throw new Error(`agent creation failed: ${response.status} ${await response.text()}`)
  const { id } = ((await response.json()) as { data: { id: string } }).data
  // Live to widget keys too: agents are created inactive.
  await server.request(`/v1/agents/${id}`, {
    method: 'PATCH',
    headers: { 'x-api-key': key },
    json: { active: true },
  })
  return id
}
