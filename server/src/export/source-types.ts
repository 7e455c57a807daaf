import type { Executor } from '../db/index.ts'

/** What an export reads: an organization's records created in [from, to). */
export type Scope = { organizationId: string; from: Date | null; to: Date | null }

/** Where the previous page ended (records are read oldest first: creation time, then id). */
export type After = { createdAt: string; id: string } | null

/** One record of an export: an NDJSON line as it is, or a CSV row by `columns`. */
export type ExportRecord = Record<string, unknown>

/**
 * A kind of export: how many records it would have, and its records a page at a time (keyset, so
 * a page costs the same at the millionth record as at the first). CSV flattens a record by
 * `columns`; nested values (messages, a transcript) become one cell each.
 */
export type Source = {
  columns: readonly string[]
  count: (db: Executor, scope: Scope) => Promise<number>
  page: (
    db: Executor,
    input: { scope: Scope; after: After; limit: number },
  ) => Promise<{ records: ExportRecord[]; last: After }>
  csvCells: (record: ExportRecord) => unknown[]
}
