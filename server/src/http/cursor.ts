import { AppError } from './app-error.ts'

/**
 * Where a newest-first page ended: its last row's creation time, to the microsecond as the
 * database holds it (db/exact-time.ts), and its id.
 */
export type Cursor = { createdAt: string; id: string }

/** An opaque cursor: the last row's creation time and id, base64url. */
export const encodeCursor = ({ createdAt, id }: Cursor) =>
  Buffer.from(JSON.stringify([createdAt, id])).toString('base64url')

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?(?:Z|[+-](\d{2}):(\d{2}))$/

/** Every id this API gives is a ULID; the set is kept wider, but never NUL nor anything to escape. */
const ID = /^[0-9A-Za-z_-]{1,100}$/

/** Real time-zone offsets run from -12:00 to +14:00; PostgreSQL refuses past ±15:59. */
const MAX_OFFSET_HOURS = 14

/**
 * Whether `text` names an instant PostgreSQL reads as written: a calendar date that exists (no
 * 30 February, no year 0000), a wall-clock time within the day (no 24:00), an offset a real zone
 * has. Date.UTC rolls an impossible date over to another one, so the parts are read back and
 * compared.
 */
const isExactInstant = (text: string) => {
  const match = ISO_TIME.exec(text)
  if (!match) return false
  const part = (at: number) => Number(match[at] ?? 0)
  const year = part(1)
  const month = part(2)
  const day = part(3)
  const hour = part(4)
  const minute = part(5)
  const second = part(6)
  const offsetHours = part(7)
  const offsetMinutes = part(8)
  if (year < 1 || offsetHours > MAX_OFFSET_HOURS || offsetMinutes > 59) return false
  const instant = new Date(Date.UTC(year, month - 1, day, hour, minute, second))
  // Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear puts the year back as written.
  instant.setUTCFullYear(year)
  return (
    instant.getUTCFullYear() === year &&
    instant.getUTCMonth() === month - 1 &&
    instant.getUTCDate() === day &&
    instant.getUTCHours() === hour &&
    instant.getUTCMinutes() === minute &&
    instant.getUTCSeconds() === second
  )
}

/**
 * Reads a cursor back, or answers 400 naming `cursor`: it must decode to the pair encodeCursor
 * wrote, an instant PostgreSQL accepts and an id of the alphabet ids are made of, so nothing a
 * client crafts reaches the database as a value it would refuse.
 */
export const decodeCursor = (cursor: string): Cursor => {
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown
    if (Array.isArray(decoded) && decoded.length === 2) {
      const [createdAt, id] = decoded as unknown[]
      if (typeof createdAt === 'string' && isExactInstant(createdAt) && typeof id === 'string' && ID.test(id))
        return { createdAt, id }
    }
  } catch {
    // Falls through to the one answer for every malformed cursor.
  }
  throw AppError.badRequest('cursor: is not a cursor this API gave (use nextCursor as it came)')
}

/** createdFrom must come before createdTo when both are given. */
export const checkCreatedRange = ({
  createdFrom,
  createdTo,
}: {
  createdFrom?: string
  createdTo?: string
}) => {
  if (createdFrom && createdTo && new Date(createdFrom) >= new Date(createdTo))
    throw AppError.badRequest('createdTo: must be later than createdFrom')
}
