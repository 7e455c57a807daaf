import type { AddressInfo } from 'node:net'
import { type WebSocket, WebSocketServer } from 'ws'

type ClientEvent = { type: string; event_id?: string; [key: string]: unknown }

const serve = async (path: string) => {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, path })
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()))
  const { port } = wss.address() as AddressInfo
  const close = () =>
    new Promise<void>((resolve) => {
      for (const client of wss.clients) client.terminate()
      wss.close(() => resolve())
    })
  return { wss, port, close }
}

/**
 * OpenAI's Realtime API on a loopback port, in its wire format (the GA event names the plugin
 * speaks): conversation items created are acknowledged (`conversation.item.added`), and each
 * `response.create` streams the next scripted reply as an audio transcript, as a voice answer's
 * text arrives (no audio frames: the tests run the framework's text mode). `hearCallee` plays the
 * server's side of the callee speaking: its VAD, the input transcription, then (as server VAD
 * with `create_response` does) a reply of its own the client did not ask for. `events` records
 * what the client sent.
 */
export const startFakeRealtime = async () => {
  const { wss, port, close } = await serve('/v1/realtime')
  const events: ClientEvent[] = []
  const urls: string[] = []
  const authorizations: Array<string | undefined> = []
  const script: string[] = []
  let sequence = 0
  const sockets = new Set<WebSocket>()

  const send = (socket: WebSocket, event: Record<string, unknown>) =>
    socket.send(JSON.stringify({ event_id: `event_${++sequence}`, ...event }))

  const respond = (socket: WebSocket, text: string, metadata: unknown = null) => {
    const responseId = `resp_${++sequence}`
    const itemId = `item_${++sequence}`
    const item = { id: itemId, object: 'realtime.item', type: 'message', role: 'assistant' }
    const at = { response_id: responseId, item_id: itemId, output_index: 0, content_index: 0 }
    const content = [{ type: 'output_audio', transcript: text }]
    send(socket, {
      type: 'response.created',
      response: { id: responseId, object: 'realtime.response', status: 'in_progress', output: [], metadata },
    })
    send(socket, {
      type: 'response.output_item.added',
      response_id: responseId,
      output_index: 0,
      item: { ...item, status: 'in_progress', content: [] },
    })
    send(socket, { type: 'conversation.item.added', previous_item_id: null, item: { ...item, content: [] } })
    send(socket, { type: 'response.content_part.added', ...at, part: { type: 'audio', transcript: '' } })
    send(socket, { type: 'response.output_audio_transcript.delta', ...at, delta: text })
    send(socket, { type: 'response.output_audio_transcript.done', ...at, transcript: text })
    send(socket, { type: 'response.content_part.done', ...at, part: { type: 'audio', transcript: text } })
    send(socket, {
      type: 'response.output_item.done',
      response_id: responseId,
      output_index: 0,
      item: { ...item, status: 'completed', content },
    })
    send(socket, {
      type: 'response.done',
      response: {
        id: responseId,
        object: 'realtime.response',
        status: 'completed',
        output: [{ ...item, status: 'completed', content }],
        metadata,
        usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
      },
    })
  }

  wss.on('connection', (socket, request) => {
    sockets.add(socket)
    urls.push(request.url ?? '')
    authorizations.push(request.headers.authorization)
    socket.on('close', () => sockets.delete(socket))
    send(socket, {
      type: 'session.created',
      session: { id: `sess_${++sequence}`, object: 'realtime.session' },
    })
    socket.on('message', (data) => {
      const event = JSON.parse(String(data)) as ClientEvent
      events.push(event)
      switch (event.type) {
        case 'session.update':
          send(socket, { type: 'session.updated', session: event.session })
          break
        case 'conversation.item.create':
          send(socket, {
            type: 'conversation.item.added',
            previous_item_id: event.previous_item_id ?? null,
            item: event.item,
          })
          break
        case 'conversation.item.delete':
          send(socket, { type: 'conversation.item.deleted', item_id: event.item_id })
          break
        case 'response.create': {
          const response = (event.response ?? {}) as { metadata?: unknown }
          respond(socket, script.shift() ?? 'Okay.', response.metadata ?? null)
          break
        }
      }
    })
  })

  return {
    /** The base URL a realtime endpoint names (the plugin adds `/realtime`). */
    baseUrl: `http://127.0.0.1:${port}/v1`,
    events,
    urls,
    authorizations,
    /** What the next replies say, in order. */
    queue: (...texts: string[]) => void script.push(...texts),
    /** The callee says `text`: speech started and stopped, its input transcription, then the server's own reply. */
    hearCallee: (text: string, reply: string) => {
      for (const socket of sockets) {
        const itemId = `item_${++sequence}`
        send(socket, { type: 'input_audio_buffer.speech_started', audio_start_ms: 0, item_id: itemId })
        send(socket, { type: 'input_audio_buffer.speech_stopped', audio_end_ms: 2_000, item_id: itemId })
        send(socket, { type: 'input_audio_buffer.committed', previous_item_id: null, item_id: itemId })
        send(socket, {
          type: 'conversation.item.added',
          previous_item_id: null,
          item: {
            id: itemId,
            object: 'realtime.item',
            type: 'message',
            role: 'user',
            content: [{ type: 'input_audio', transcript: null }],
          },
        })
        send(socket, {
          type: 'conversation.item.input_audio_transcription.completed',
          item_id: itemId,
          content_index: 0,
          transcript: text,
        })
        respond(socket, reply)
      }
    },
    reset: () => {
      events.length = 0
      script.length = 0
    },
    close,
  }
}

/**
 * Deepgram's live transcription WebSocket (`/v1/listen`) on a loopback port, in its wire format:
 * the plugin's connection is accepted (its query and `Token` authorization recorded, its audio
 * ignored) and `say` sends every open connection a final `Results` message, as Deepgram does
 * once it has transcribed an utterance.
 */
export const startFakeDeepgram = async () => {
  const { wss, port, close } = await serve('/v1/listen')
  const connections: Array<{ query: URLSearchParams; authorization: string | undefined }> = []
  const sockets = new Set<WebSocket>()
  wss.on('connection', (socket, request) => {
    sockets.add(socket)
    connections.push({
      query: new URL(request.url ?? '/', 'http://127.0.0.1').searchParams,
      authorization: request.headers.authorization,
    })
    socket.on('close', () => sockets.delete(socket))
  })
  return {
    /** The base URL the server's registry names for Deepgram (`…/v1`). */
    baseUrl: `http://127.0.0.1:${port}/v1`,
    connections,
    /** How many connections are open now. */
    open: () => sockets.size,
    say: (text: string) => {
      for (const socket of sockets)
        socket.send(
          JSON.stringify({
            type: 'Results',
            channel_index: [0, 1],
            duration: 2,
            start: 0,
            is_final: true,
            speech_final: true,
            channel: { alternatives: [{ transcript: text, confidence: 0.98, words: [] }] },
            metadata: { request_id: 'fake-request' },
          }),
        )
    },
    close,
  }
}
