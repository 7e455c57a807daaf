import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type WebSocket, WebSocketServer } from 'ws'

/** One streaming connection to `/v1/listen`, as the fake saw it. */
export type DeepgramStream = {
  /** The query the plugin opened the stream with (model, encoding, sample_rate, endpointing, …). */
  query: Record<string, string>
  authorization: string | undefined
  /** The raw 16-bit PCM received, in milliseconds at the stream's sample rate. */
  audioMs: number
  /** The JSON control messages the plugin sent (`KeepAlive`, `Finalize`, `CloseStream`). */
  controls: string[]
  /** The transcripts sent back as final results, with when. */
  finals: { text: string; at: number }[]
  /** Set once the socket closed: whether the fake closed it after a `CloseStream`. */
  closedAfterCloseStream?: boolean
}

/** A 100 ms chunk whose RMS is below this is silence (the fixtures' speech is far above it). */
const SILENCE_RMS = 300

const rmsOf = (pcm: Buffer) => {
  const samples = new Int16Array(pcm.buffer, pcm.byteOffset, Math.floor(pcm.byteLength / 2))
  let sum = 0
  for (const sample of samples) sum += sample * sample
  return samples.length ? Math.sqrt(sum / samples.length) : 0
}

/**
 * Deepgram's streaming speech-to-text on a loopback port, in its WebSocket wire format
 * (developers.deepgram.com, "Live audio"): `GET /v1/listen?…` upgraded to a WebSocket, with
 * `Authorization: Token <key>`; the client sends raw linear16 audio as binary messages and
 * `{"type": "KeepAlive" | "Finalize" | "CloseStream"}` as text. The fake answers like the real
 * service with `vad_events=true`: `SpeechStarted` when speech begins, an interim `Results`
 * (`is_final: false`) while it goes on, and a final one (`is_final: true, speech_final: true`)
 * when `endpointing` ms of silence (or no audio) follow it, or at once on `Finalize`. The
 * transcript is the next queued text. On `CloseStream` it sends `Metadata` and closes the socket.
 * `rejectWith(status)` refuses the upgrade (the service down); `dropAfterAudio` cuts streams
 * once audio arrives.
 */
export const startFakeDeepgram = async () => {
  const streams: DeepgramStream[] = []
  const texts: string[] = []
  let rejectStatus: number | null = null
  let dropAfterAudio = false

  const server = createServer((_request, response) => {
    response.writeHead(404, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ err_code: 'NOT_FOUND', err_msg: 'streaming only' }))
  })
  const sockets = new WebSocketServer({ noServer: true })

  server.on('upgrade', (request, socket, head) => {
    const url = new URL(String(request.url), 'http://fake')
    if (url.pathname !== '/v1/listen' || rejectStatus !== null) {
      const status = url.pathname !== '/v1/listen' ? 404 : (rejectStatus ?? 500)
      socket.end(`HTTP/1.1 ${status} Error\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n`)
      return
    }
    sockets.handleUpgrade(request, socket, head, (ws) => {
      const stream: DeepgramStream = {
        query: Object.fromEntries(url.searchParams),
        authorization: request.headers.authorization,
        audioMs: 0,
        controls: [],
        finals: [],
      }
      streams.push(stream)
      serve(ws, stream)
    })
  })

  const serve = (ws: WebSocket, stream: DeepgramStream) => {
    const requestId = randomUUID()
    const sampleRate = Number(stream.query.sample_rate ?? 16_000)
    // Deepgram's own detector tells a pause between words from the end of a sentence; this one
    // only measures silence, so it waits at least 300 ms to keep a fixture's sentence in one final.
    const endpointingMs = Math.max(Number(stream.query.endpointing) || 25, 300)
    const model = stream.query.model ?? 'nova-3'
    let pending = Buffer.alloc(0)
    /** Seconds of audio received so far (the stream's clock). */
    let position = 0
    let speech: { start: number; voicedMs: number; interimSent: boolean } | null = null
    let silentMs = 0
    let idle: NodeJS.Timeout | undefined
    let closing = false

    const send = (message: unknown) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message))
    }
    const results = (text: string, isFinal: boolean, speechFinal: boolean, start: number) => {
      const words = text.split(/\s+/).filter(Boolean)
      const duration = Math.max(0.01, position - start)
      const step = duration / Math.max(1, words.length)
      send({
        type: 'Results',
        channel_index: [0, 1],
        duration,
        start,
        is_final: isFinal,
        speech_final: speechFinal,
        channel: {
          alternatives: [
            {
              transcript: text,
              confidence: 0.99,
              words: words.map((word, index) => ({
                word: word.toLowerCase().replace(/[^\p{L}\p{N}']/gu, ''),
                start: start + index * step,
                end: start + (index + 1) * step,
                confidence: 0.99,
                punctuated_word: word,
              })),
            },
          ],
        },
        metadata: {
          request_id: requestId,
          model_info: { name: `2-general-${model}`, version: '2024-01-01', arch: model },
          model_uuid: randomUUID(),
        },
        from_finalize: false,
      })
    }
    /** The end of an utterance: its final result, with the next queued text. */
    const endpoint = () => {
      clearTimeout(idle)
      if (!speech) return
      const text = texts.shift() ?? ''
      results(text, true, true, speech.start)
      stream.finals.push({ text, at: Date.now() })
      speech = null
      silentMs = 0
    }

    ws.on('message', (data, isBinary) => {
      if (!isBinary) {
        const control = JSON.parse(data.toString()) as { type: string }
        stream.controls.push(control.type)
        if (control.type === 'Finalize') endpoint()
        if (control.type === 'CloseStream') {
          endpoint()
          closing = true
          send({
            type: 'Metadata',
            transaction_key: 'deprecated',
            request_id: requestId,
            sha256: '0'.repeat(64),
            created: new Date().toISOString(),
            duration: position,
            channels: 1,
            models: [randomUUID()],
            model_info: {},
          })
          ws.close(1000)
        }
        return
      }
      if (dropAfterAudio) {
        ws.terminate()
        return
      }
      pending = Buffer.concat([pending, data as Buffer])
      const chunkBytes = (sampleRate / 10) * 2
      while (pending.byteLength >= chunkBytes) {
        const chunk = pending.subarray(0, chunkBytes)
        pending = pending.subarray(chunkBytes)
        stream.audioMs += 100
        const voiced = rmsOf(chunk) >= SILENCE_RMS
        const chunkStart = position
        position += 0.1
        if (voiced) {
          if (!speech) {
            speech = { start: chunkStart, voicedMs: 0, interimSent: false }
            send({ type: 'SpeechStarted', channel: [0], timestamp: chunkStart })
          }
          speech.voicedMs += 100
          silentMs = 0
          if (!speech.interimSent && speech.voicedMs >= 500 && texts[0]) {
            speech.interimSent = true
            const partial = texts[0].split(/\s+/).slice(0, 2).join(' ')
            results(partial, false, false, speech.start)
          }
        } else if (speech) {
          silentMs += 100
          if (silentMs >= endpointingMs) endpoint()
        }
      }
      // The plugin stops sending once the caller is silent for a while: no audio is silence too.
      clearTimeout(idle)
      if (speech) idle = setTimeout(endpoint, Math.max(endpointingMs, 200))
    })
    ws.on('close', () => {
      clearTimeout(idle)
      stream.closedAfterCloseStream = closing
    })
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    /** What DEEPGRAM_BASE_URL should be (the registry's form: the API root with `/v1`). */
    baseUrl: `http://127.0.0.1:${port}/v1`,
    streams,
    /** The next utterances' transcripts, in order. */
    transcribe: (...next: string[]) => void texts.push(...next),
    /** Refuses every new stream's upgrade with this status until given null. */
    rejectWith: (status: number | null) => {
      rejectStatus = status
    },
    /** Cuts every stream as soon as it sends audio, until given false. */
    dropStreams: (drop: boolean) => {
      dropAfterAudio = drop
    },
    reset: () => {
      streams.length = 0
      texts.length = 0
      rejectStatus = null
      dropAfterAudio = false
    },
    close: async () => {
      for (const client of sockets.clients) client.terminate()
      sockets.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export type FakeDeepgram = Awaited<ReturnType<typeof startFakeDeepgram>>
