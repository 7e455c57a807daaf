import { ReadableStream, type ReadableStreamDefaultController } from 'node:stream/web'
import { voice } from '@livekit/agents'
import { AudioFrame } from '@livekit/rtc-node'
import { INPUT_SAMPLE_RATE, type Speech } from './speech.ts'

const FRAME_MS = 10
const FRAME_SAMPLES = (INPUT_SAMPLE_RATE * FRAME_MS) / 1000

/** When a played fixture's first and last samples went to the agent (Date.now()). */
export type Played = { startedAt: number; endedAt: number; durationMs: number }

/**
 * The caller's microphone: a 10 ms frame every 10 ms of wall-clock time, like a LiveKit audio
 * track, silence unless `play` is playing a fixture. Paced by elapsed time (not by counting
 * timer ticks), so a late timer sends the frames it owes at once instead of slowing the caller.
 */
export class PacedAudioInput extends voice.AudioInput {
  #controller: ReadableStreamDefaultController<AudioFrame> | undefined
  #timer: NodeJS.Timeout | undefined
  #startedAt = 0
  #sent = 0
  #queue: { samples: Int16Array; offset: number; startedAt?: number; done: (played: Played) => void }[] = []

  constructor() {
    super()
    const stream = new ReadableStream<AudioFrame>({
      start: (controller) => {
        this.#controller = controller
      },
    })
    this.multiStream.addInputStream(stream)
    this.#startedAt = Date.now()
    this.#timer = setInterval(() => this.#tick(), FRAME_MS)
  }

  /** Plays `speech` after whatever is playing; resolves once its last sample was sent. */
  play(speech: Speech): Promise<Played> {
    return new Promise((done) => this.#queue.push({ samples: speech.samples, offset: 0, done }))
  }

  #tick() {
    const due = Math.floor((Date.now() - this.#startedAt) / FRAME_MS)
    while (this.#sent < due) {
      this.#sent++
      const frame = new Int16Array(FRAME_SAMPLES)
      const current = this.#queue[0]
      if (current) {
        current.startedAt ??= Date.now()
        const part = current.samples.subarray(current.offset, current.offset + FRAME_SAMPLES)
        frame.set(part)
        current.offset += part.length
        if (current.offset >= current.samples.length) {
          this.#queue.shift()
          const endedAt = Date.now()
          current.done({ startedAt: current.startedAt, endedAt, durationMs: endedAt - current.startedAt })
        }
      }
      this.#controller?.enqueue(new AudioFrame(frame, INPUT_SAMPLE_RATE, 1, FRAME_SAMPLES))
    }
  }

  override async close() {
    clearInterval(this.#timer)
    try {
      this.#controller?.close()
    } catch {
      // already closed by the session
    }
    await super.close()
  }
}

/** One stretch of the agent's speech as the caller heard it. */
export type Segment = {
  /** When its first frame reached the output (the framework's "first frame out"). */
  firstFrameAt: number
  /** When it began to play (later than firstFrameAt when it waited for the one before). */
  startedAt: number
  /** Audio the framework gave the output, in milliseconds. */
  capturedMs: number
  frames: number
  /** Set once it finished: how much played, and whether clearBuffer cut it. */
  playedMs?: number
  interrupted?: boolean
  finishedAt?: number
}

/**
 * The caller's loudspeaker: takes the agent's frames as fast as the framework gives them and
 * "plays" them in wall-clock time (a segment ends its duration after it started), reporting
 * playback start and finish as LiveKit's room output does; clearBuffer stops it where it is and
 * reports how much was heard. Records every segment for the tests.
 */
export class RecordingAudioOutput extends voice.AudioOutput {
  readonly segments: Segment[] = []
  #open: Segment | undefined
  #playing: { segment: Segment; timer?: NodeJS.Timeout }[] = []
  #playheadEnd = 0
  #listeners: ((segment: Segment) => void)[] = []

  constructor(sampleRate = 24_000) {
    super(sampleRate)
  }

  override async captureFrame(frame: AudioFrame) {
    await super.captureFrame(frame)
    const now = Date.now()
    if (!this.#open) {
      const startedAt = Math.max(now, this.#playheadEnd)
      const segment: Segment = { firstFrameAt: now, startedAt, capturedMs: 0, frames: 0 }
      this.#open = segment
      this.segments.push(segment)
      this.#playing.push({ segment })
      this.#playheadEnd = startedAt
      this.onPlaybackStarted(startedAt)
      for (const listener of this.#listeners.splice(0)) listener(segment)
    }
    const durationMs = (frame.samplesPerChannel / frame.sampleRate) * 1000
    this.#open.capturedMs += durationMs
    this.#open.frames++
    this.#playheadEnd += durationMs
  }

  override flush() {
    super.flush()
    const segment = this.#open
    this.#open = undefined
    const entry = this.#playing.find((playing) => playing.segment === segment)
    if (!segment || !entry) return
    entry.timer = setTimeout(
      () => this.#finish(entry, false),
      Math.max(0, segment.startedAt + segment.capturedMs - Date.now()),
    )
  }

  override clearBuffer() {
    this.#open = undefined
    for (const entry of [...this.#playing]) this.#finish(entry, true)
    this.#playheadEnd = Date.now()
  }

  #finish(entry: { segment: Segment; timer?: NodeJS.Timeout }, interrupted: boolean) {
    clearTimeout(entry.timer)
    this.#playing = this.#playing.filter((playing) => playing !== entry)
    const { segment } = entry
    const now = Date.now()
    segment.playedMs = interrupted
      ? Math.min(Math.max(0, now - segment.startedAt), segment.capturedMs)
      : segment.capturedMs
    segment.interrupted = interrupted
    segment.finishedAt = now
    this.onPlaybackFinished({ playbackPosition: segment.playedMs / 1000, interrupted })
  }

  /** Resolves with the next segment to start playing. */
  nextSegment(): Promise<Segment> {
    return new Promise((resolve) => this.#listeners.push(resolve))
  }
}
