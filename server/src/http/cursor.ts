import { AppError } from './app-error.ts'

/** Where a newest-first page ended: its last row's creation time and id. */
export type Cursor = { createdAt: Date; id: string }

/** An opaque cursor: the last row's creation time and id, base64url. */
export const encodeCursor = ({ createdAt, id }: Cursor) =>
  Buffer.from(JSON.stringify([createdAt.toISOString(), id])).toString('base64url')

export const decodeCursor = (cursor: string): Cursor => {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[]
    const date = new Date(String(createdAt))
    if (typeof id === 'string' && id.length > 0 && id.length <= 100 && !Number.isNaN(date.getTime()))
      return { createdAt: date, id }
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
