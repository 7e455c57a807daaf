import { Writable } from 'node:stream'
import { pino } from 'pino'

export type LogLine = {
  level: number
  msg?: string
  res?: { statusCode: number | null }
  [key: string]: unknown
}

/** A pino logger whose lines land in `lines` (parsed), for tests that check what was logged. */
export const captureLog = ({ level = 'info' }: { level?: string } = {}) => {
  const lines: LogLine[] = []
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as LogLine)
      done()
    },
  })
  return { logger: pino({ level }, sink), lines }
}

/** pino's numeric levels. */
export const logLevels = { warn: 40, error: 50 } as const
