import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { tonePcm } from './speech.ts'

/** OpenAI's TTS answers raw 16-bit mono PCM at 24 kHz for `response_format: "pcm"`. */
export const TTS_SAMPLE_RATE = 24_000

export type Transcription = {
  receivedAt: number
  answeredAt: number
  /** The audio the plugin sent, from its WAV header. */
  audioMs: number
  sampleRate: number
  model: string
  language: string | null
  authorization: string | undefined
  text: string
}

export type Synthesis = {
  receivedAt: number
  /** When the first byte of audio went out. */
  firstByteAt: number
  input: string
  model: string
  voice: string
  responseFormat: string
  audioMs: number
  authorization: string | undefined
}

const bodyOf = async (request: IncomingMessage) => {
  const parts: Buffer[] = []
  for await (const part of request) parts.push(part as Buffer)
  return Buffer.concat(parts)
}

/** The WAV header's sample rate and the duration of its data chunk. */
const wavDuration = (wav: Buffer) => {
  const channels = wav.readUInt16LE(22)
  const sampleRate = wav.readUInt32LE(24)
  const bits = wav.readUInt16LE(34)
  const dataBytes = wav.readUInt32LE(40)
  return { sampleRate, audioMs: (dataBytes / (sampleRate * channels * (bits / 8))) * 1000 }
}

/**
 * OpenAI's audio endpoints on a loopback port, in their wire format: `POST /v1/audio/transcriptions`
 * (multipart form with a WAV `file`, answers `{"text": …}`) and `POST /v1/audio/speech` (JSON,
 * answers the audio as raw PCM, 24 kHz 16-bit mono, for `response_format: "pcm"`). The
 * transcription is the next queued text (or `defaultText`); the speech is a tone as long as the
 * text would take to say (`msPerWord`). Each answer waits its fixed latency first, so the bench
 * can subtract it.
 */
export const startFakeOpenAiAudio = async ({
  sttLatencyMs = 0,
  ttsLatencyMs = 0,
  msPerWord = 220,
}: {
  sttLatencyMs?: number
  ttsLatencyMs?: number
  msPerWord?: number
} = {}) => {
  const transcriptions: Transcription[] = []
  const syntheses: Synthesis[] = []
  const texts: string[] = []
  let defaultText = 'Hello?'
  /**
   * While set, the requests to `failPath` (every request when null) are answered with this HTTP
   * status and an OpenAI error body, or, for `drop`, their connection is cut before any answer.
   */
  let failStatus: number | 'drop' | null = null
  let failPath: string | null = null
  /** The requests answered with failStatus, by path. */
  const failed: string[] = []

  const server = createServer(async (request, response) => {
    const receivedAt = Date.now()
    const body = await bodyOf(request)
    const authorization = request.headers.authorization
    if (failStatus !== null && (failPath === null || request.url === failPath)) {
      failed.push(String(request.url))
      if (failStatus === 'drop') {
        request.socket.destroy()
        return
      }
      response.writeHead(failStatus, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ error: { message: 'The server had an error', type: 'server_error' } }))
      return
    }
    try {
      if (request.method === 'POST' && request.url === '/v1/audio/transcriptions') {
        const form = await new Request('http://fake/', {
          method: 'POST',
          headers: { 'content-type': String(request.headers['content-type']) },
          body,
        }).formData()
        const file = form.get('file')
        if (!(file instanceof Blob)) throw new Error('no file part')
        const wav = Buffer.from(await file.arrayBuffer())
        const text = texts.shift() ?? defaultText
        if (sttLatencyMs) await sleep(sttLatencyMs)
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify({ text }))
        transcriptions.push({
          receivedAt,
          answeredAt: Date.now(),
          ...wavDuration(wav),
          model: String(form.get('model')),
          language: form.has('language') ? String(form.get('language')) : null,
          authorization,
          text,
        })
      } else if (request.method === 'POST' && request.url === '/v1/audio/speech') {
        const json = JSON.parse(body.toString('utf8')) as {
          input: string
          model: string
          voice: string
          response_format: string
        }
        const words = json.input.trim().split(/\s+/).length
        const audioMs = Math.max(300, words * msPerWord)
        const pcm = tonePcm({ durationMs: audioMs, sampleRate: TTS_SAMPLE_RATE })
        if (ttsLatencyMs) await sleep(ttsLatencyMs)
        response.writeHead(200, { 'content-type': 'application/octet-stream' })
        const firstByteAt = Date.now()
        response.end(pcm)
        syntheses.push({
          receivedAt,
          firstByteAt,
          input: json.input,
          model: json.model,
          voice: json.voice,
          responseFormat: json.response_format,
          audioMs,
          authorization,
        })
      } else {
        response.writeHead(404, { 'content-type': 'application/json' })
        response.end(JSON.stringify({ error: { message: `no route ${request.method} ${request.url}` } }))
      }
    } catch (error) {
      response.writeHead(400, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ error: { message: String(error) } }))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    /** What OPENAI_BASE_URL should be. */
    baseUrl: `http://127.0.0.1:${port}/v1`,
    transcriptions,
    syntheses,
    failed,
    /**
     * Answers every request (or only those to `path`, e.g. `/v1/audio/transcriptions`) with this
     * status (500: the provider is down), or cuts their connection (`drop`), until given null.
     */
    failWith: (status: number | 'drop' | null, path: string | null = null) => {
      failStatus = status
      failPath = path
    },
    /** The next transcriptions' texts, in order. */
    transcribe: (...next: string[]) => void texts.push(...next),
    setDefaultText: (text: string) => {
      defaultText = text
    },
    reset: () => {
      transcriptions.length = 0
      syntheses.length = 0
      texts.length = 0
      failed.length = 0
      failStatus = null
      failPath = null
    },
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export type FakeOpenAiAudio = Awaited<ReturnType<typeof startFakeOpenAiAudio>>
