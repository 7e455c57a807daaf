import { type RawBuilder, sql } from 'kysely'

/**
 * A timestamp as PostgreSQL holds it, to the microsecond, as ISO 8601 text. A keyset cursor keeps
 * this rather than a JavaScript Date (milliseconds): a cursor cut to the millisecond would repeat
 * or skip rows created within the same millisecond (rows written by now() carry microseconds).
 */
export const exactTime = (column: string): RawBuilder<string> =>
  sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

/** The text of exactTime back as a timestamp, in a comparison. */
export const atExactTime = (text: string) => sql`${text}::timestamptz`
