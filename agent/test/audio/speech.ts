import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdir, readFile, rename } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** The caller's audio: what a phone or a browser's microphone sends, after LiveKit's resampling. */
export const INPUT_SAMPLE_RATE = 16_000

/** Mono 16-bit PCM at INPUT_SAMPLE_RATE, with its duration. */
export type Speech = { text: string; samples: Int16Array; durationMs: number }

const cacheDir = join(tmpdir(), 'parley-voice-fixtures')

/**
 * `text` spoken by espeak-ng (a Debian package: `apt-get install espeak-ng sox`), resampled by sox
 * to 16 kHz mono and trimmed of the silence espeak puts around it, so the fixture's duration is the
 * speech's. Generated once per machine into the temp directory (a few tens of milliseconds each).
 */
export const speechOf = async (text: string): Promise<Speech> => {
  const name = createHash('sha256').update(`v1|${text}`).digest('hex').slice(0, 16)
  const raw = join(cacheDir, `${name}.s16`)
  let bytes: Buffer
  try {
    bytes = await readFile(raw)
  } catch {
    await mkdir(cacheDir, { recursive: true })
    const wav = join(cacheDir, `${name}.${process.pid}.wav`)
    await run('espeak-ng', ['-s', '190', '-w', wav, text])
    const partial = `${raw}.${process.pid}`
    await run('sox', [
      wav,
      ...['-t', 'raw', '-e', 'signed-integer', '-b', '16', '-c', '1', '-r', String(INPUT_SAMPLE_RATE)],
      partial,
      ...['silence', '1', '0.02', '1%', 'reverse', 'silence', '1', '0.02', '1%', 'reverse'],
    ])
    await rename(partial, raw)
    bytes = await readFile(raw)
  }
  const samples = new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 2))
  return { text, samples, durationMs: (samples.length / INPUT_SAMPLE_RATE) * 1000 }
}

/** A 440 Hz tone at a speaking level: the fake TTS's "voice", `durationMs` long, as PCM bytes. */
export const tonePcm = ({ durationMs, sampleRate }: { durationMs: number; sampleRate: number }) => {
  const count = Math.round((durationMs / 1000) * sampleRate)
  const samples = new Int16Array(count)
  for (let index = 0; index < count; index++)
    samples[index] = Math.round(Math.sin((2 * Math.PI * 440 * index) / sampleRate) * 8000)
  return Buffer.from(samples.buffer)
}
