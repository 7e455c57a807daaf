import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fetchEventSource } from '@microsoft/fetch-event-source'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { StreamEvent } from './contract.ts'
import { createHttpTransport, TransportError } from './transport.ts'

type Handler = (request: IncomingMessage, response: ServerResponse) => void

const servers: Array<{ close: () => void }> = []
const serve = async (handler: Handler) => {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  servers.push({ close: () => server.close() })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const frame = (id: number, event: string, data: unknown) =>
  `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`
const session = { conversationId: 'c1', sessionToken: 'token', agentName: 'Guide', greeting: null }
// The widget fetches the SSE reader with its panel chunk; here it is the same library, at hand.
const transportTo = (
  baseUrl: string,
  credentials: { apiKey: string; studioToken?: string } = { apiKey: 'tk_widget_x' },
) => createHttpTransport({ baseUrl, ...credentials, openStream: async () => fetchEventSource })

const collect = async (baseUrl: string) => {
  const events: StreamEvent[] = []
  await transportTo(baseUrl).send({
    session,
    message: 'hi',
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
  })
  return events
}

beforeAll(() => {
  // fetch-event-source reaches for window.fetch, window.setTimeout and document's visibility events.
  Object.assign(globalThis, {
    window: globalThis,
    document: { addEventListener() {}, removeEventListener() {} },
  })
})
afterEach(() => {
  for (const server of servers.splice(0)) server.close()
})

describe('HTTP transport', () => {
  it('resumes a dropped stream with the same Idempotency-Key and Last-Event-ID, never repeating a word', async () => {
    const requests: Array<{ key: unknown; lastEventId: unknown }> = []
    const url = await serve((request, response) => {
      requests.push({
        key: request.headers['idempotency-key'],
        lastEventId: request.headers['last-event-id'],
      })
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      if (requests.length === 1) {
        response.write(frame(1, 'stream_start', { agent_name: 'Guide' }))
        response.write(frame(2, 'chunk', { delta: 'Hel' }))
        setTimeout(() => response.socket?.destroy(), 20)
        return
      }
      // This server replays from the start; the client drops what it has already seen.
      response.write(frame(2, 'chunk', { delta: 'Hel' }))
      response.write(frame(3, 'chunk', { delta: 'lo' }))
      response.end(frame(4, 'stream_end', { usage: {}, end_session: false }))
    })
    const events = await collect(url)
    expect(events).toEqual([
      { type: 'stream_start', agentName: 'Guide' },
      { type: 'chunk', delta: 'Hel' },
      { type: 'chunk', delta: 'lo' },
      { type: 'stream_end', endSession: false },
    ])
    expect(requests).toHaveLength(2)
    expect(requests[1]?.key).toBe(requests[0]?.key)
    expect(requests[1]?.lastEventId).toBe('2')
  })

  it('turns a 429 into a TransportError with the Retry-After seconds, without retrying', async () => {
    let calls = 0
    const url = await serve((_request, response) => {
      calls++
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' })
      response.end(JSON.stringify({ detail: 'Too many requests', code: 'rate_limited' }))
    })
    const error = await collect(url).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(TransportError)
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 7 })
    expect(calls).toBe(1)
  })

  it('sends the widget key on session creation and narrows the response', async () => {
    let apiKey: unknown
    const url = await serve((request, response) => {
      apiKey = request.headers['x-api-key']
      response.writeHead(201, { 'content-type': 'application/json' })
      response.end(
        JSON.stringify({
          conversation_id: 'c9',
          session_token: 's',
          agent_name: 'A',
          greeting: null,
          agent_model: 'm',
          voice_available: false,
        }),
      )
    })
    const created = await transportTo(url).createSession({
      agentId: 'a',
    })
    expect(apiKey).toBe('tk_widget_x')
    expect(created).toEqual({
      conversationId: 'c9',
      sessionToken: 's',
      agentName: 'A',
      greeting: null,
      isVoiceOff: true,
    })
  })

  it('opens a session with the studio token instead, in its own header and with no key', async () => {
    const headers: Array<Record<string, unknown>> = []
    const url = await serve((request, response) => {
      headers.push({ key: request.headers['x-api-key'], studio: request.headers['x-studio-token'] })
      response.writeHead(201, { 'content-type': 'application/json' })
      response.end(
        JSON.stringify({ conversation_id: 'c1', session_token: 's', agent_name: 'A', greeting: null }),
      )
    })
    await transportTo(url, { apiKey: '', studioToken: 'studio.jwt.token' }).createSession({
      agentId: 'a',
    })
    expect(headers).toEqual([{ key: undefined, studio: 'studio.jwt.token' }])
  })

  it('ignores malformed and unknown frames', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write('event: chunk\ndata: not json\n\n')
      response.write('event: surprise\ndata: {}\n\n')
      response.write('event: handoff\ndata: {"to":"Billing"}\n\n')
      response.end('event: stream_end\ndata: {"end_session":true}\n\n')
    })
    expect(await collect(url)).toEqual([
      { type: 'handoff', toAgent: 'Billing' },
      { type: 'stream_end', endSession: true },
    ])
  })
})
