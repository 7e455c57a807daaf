import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type WebSocket, WebSocketServer } from 'ws'
import { tonePcm } from './speech.ts'

/** One generation (a `context_id`) as the fake saw it. */
export type CartesiaGeneration = {
  contextId: string
  /** The transcript parts in the order they came, joined (the plugin sends sentence by sentence). */
  text: string
  modelId: string
  voice: { mode: string; id?: string }
  language: string
  outputFormat: { container: string; encoding: string; sample_rate: number }
  apiKey: string | undefined
  version: string | undefined
  /** When the first audio chunk went out. */
  firstChunkAt?: number
  /** Whether the client asked for word timestamps (`add_timestamps`; the plugin's streams do). */
  addTimestamps: boolean
  audioMs: number
  done: boolean
}

type GenerationRequest = {
  model_id: string
  transcript: string
  voice: { mode: string; id?: string }
  output_format: { container: string; encoding: string; sample_rate: number }
  language: string
  context_id: string
  continue?: boolean
  cancel?: boolean
  add_timestamps?: boolean
}

/** Audio is sent in chunks of this length, like Cartesia's streamed output. */
const CHUNK_MS = 100

/**
 * Cartesia's text-to-speech WebSocket on a loopback port, in its wire format (docs.cartesia.ai,
 * "TTS (WebSocket)"): `GET /tts/websocket` upgraded with the `X-API-Key` and `Cartesia-Version`
 * headers; the client sends generation requests (`model_id`, `voice`, `output_format`,
 * `language`, `context_id`, `transcript`, `continue`) and may continue a context with more
 * transcript; the server answers each transcript part with `chunk` messages (base64 raw PCM in
 * the requested encoding and rate) and, when it asked `add_timestamps`, a `timestamps` message
 * with each word's start and end (seconds into the generation), and, once a request with
 * `continue: false` came, `done`.
 * The speech is a tone as long as the words would take to say (`msPerWord`).
 * `rejectWith(status)` refuses the upgrade (the service down); `failGenerations(true)` answers
 * every generation with an error message (`status_code: 500`, `done: true`).
 */
export const startFakeCartesia = async ({ msPerWord = 220 }: { msPerWord?: number } = {}) => {
  const generations: CartesiaGeneration[] = []
  let rejectStatus: number | null = null
  let failing = false
  /** Upgrades refused with rejectStatus, and generations answered with an error. */
  const refused: string[] = []

  const server = createServer((_request, response) => {
    response.writeHead(404, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ error: 'not found' }))
  })
  const sockets = new WebSocketServer({ noServer: true })

  server.on('upgrade', (request, socket, head) => {
    const path = new URL(String(request.url), 'http://fake').pathname
    if (path !== '/tts/websocket' || rejectStatus !== null) {
      const status = path !== '/tts/websocket' ? 404 : (rejectStatus ?? 500)
      refused.push(path)
      socket.end(`HTTP/1.1 ${status} Error\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n`)
      return
    }
    sockets.handleUpgrade(request, socket, head, (ws) =>
      serve(ws, {
        apiKey: request.headers['x-api-key'] as string | undefined,
        version: request.headers['cartesia-version'] as string | undefined,
      }),
    )
  })

  const serve = (ws: WebSocket, headers: { apiKey: string | undefined; version: string | undefined }) => {
    const send = (message: unknown) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message))
    }
    ws.on('message', (data) => {
      const request = JSON.parse(data.toString()) as GenerationRequest
      let generation = generations.find(
        (candidate) => candidate.contextId === request.context_id && !candidate.done,
      )
      if (request.cancel) {
        if (generation) generation.done = true
        return
      }
      if (!generation) {
        generation = {
          contextId: request.context_id,
          text: '',
          modelId: request.model_id,
          voice: request.voice,
          language: request.language,
          outputFormat: request.output_format,
          ...headers,
          addTimestamps: request.add_timestamps === true,
          audioMs: 0,
          done: false,
        }
        generations.push(generation)
      }
      if (failing) {
        refused.push(request.context_id)
        generation.done = true
        send({
          type: 'error',
          context_id: request.context_id,
          status_code: 500,
          done: true,
          error: 'Internal server error',
        })
        return
      }
      const part = request.transcript.trim()
      if (part) {
        generation.text = generation.text ? `${generation.text} ${part}` : part
        const words = part.split(/\s+/).length
        const durationMs = Math.max(300, words * msPerWord)
        const rate = request.output_format.sample_rate
        if (generation.addTimestamps) {
          const spoken = part.split(/\s+/)
          const offset = generation.audioMs / 1000
          const step = durationMs / 1000 / spoken.length
          send({
            type: 'timestamps',
            done: false,
            status_code: 206,
            context_id: request.context_id,
            word_timestamps: {
              words: spoken,
              start: spoken.map((_word, index) => offset + index * step),
              end: spoken.map((_word, index) => offset + (index + 1) * step),
            },
          })
        }
        const pcm = tonePcm({ durationMs, sampleRate: rate })
        const chunkBytes = ((rate * CHUNK_MS) / 1000) * 2
        generation.firstChunkAt ??= Date.now()
        for (let offset = 0; offset < pcm.byteLength; offset += chunkBytes) {
          const chunk = pcm.subarray(offset, offset + chunkBytes)
          send({
            type: 'chunk',
            data: chunk.toString('base64'),
            done: false,
            status_code: 206,
            step_time: 10,
            context_id: request.context_id,
          })
          generation.audioMs += (chunk.byteLength / 2 / rate) * 1000
        }
      }
      if (request.continue === false) {
        generation.done = true
        send({ type: 'done', done: true, status_code: 206, context_id: request.context_id })
      }
    })
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    /** What CARTESIA_BASE_URL should be (the API root; the plugin adds `/tts/websocket`). */
    baseUrl: `http://127.0.0.1:${port}`,
    generations,
    refused,
    /** Refuses every new connection's upgrade with this status until given null. */
    rejectWith: (status: number | null) => {
      rejectStatus = status
    },
    /** Answers every generation with a server error until given false. */
    failGenerations: (fail: boolean) => {
      failing = fail
    },
    reset: () => {
      generations.length = 0
      refused.length = 0
      rejectStatus = null
      failing = false
    },
    close: async () => {
      for (const client of sockets.clients) client.terminate()
      sockets.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export type FakeCartesia = Awaited<ReturnType<typeof startFakeCartesia>>
