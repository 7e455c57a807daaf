import { AppError } from './app-error.ts'

/**
 * Where a newest-first page ended: its last row's creation time, to the microsecond as the
 * database holds it (db/exact-time.ts), and its id.
 */
export type Cursor = { createdAt: string; id: string }

/** An opaque cursor: the last row's creation time and id, base64url. */
export const encodeCursor = ({ createdAt, id }: Cursor) =>
  Buffer.from(JSON.stringify([createdAt, id])).toString('base64url')

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/

export const decodeCursor = (cursor: string): Cursor => {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[]
    if (
      typeof createdAt === 'string' &&
      ISO_TIME.test(createdAt) &&
      !Number.isNaN(new Date(createdAt).getTime()) &&
      typeof id === 'string' &&
      id.length > 0 &&
      id.length <= 100
    )
      return { createdAt, id }
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
