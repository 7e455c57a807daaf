import { createHash } from 'node:crypto'
import type { Readable } from 'node:stream'
import type { ErrorCode } from '@parley/shared'
import { batchLimits } from '@parley/shared'
import { CsvError, parse } from 'csv-parse'
import { AppError } from './app-error.ts'

/**
 * Uploaded CSV files (a campaign's contacts, a do-not-call import): parsed as the bytes arrive,
 * with one set of limits for every upload.
 */

const invalidCsv = (detail: string) => AppError.badRequest(`Invalid CSV: ${detail}`, 'invalid_csv')

/**
 * Rows read at most. Checking a phone costs tens of microseconds and the parse blocks the event
 * loop, so a 10 MiB file of 800,000 short rows would stall the process for many seconds; five
 * times the contact limit leaves room for invalid and repeated rows.
 */
export const MAX_CSV_ROWS = 5 * batchLimits.maxContacts

/** Columns a file may have (the header's width); wider files are refused, not trimmed. */
export const MAX_CSV_COLUMNS = 100
/** Bytes of the header row. */
export const MAX_CSV_HEADER_BYTES = 16 * 1024
/** Characters of one row (csv-parse's max_record_size), checked while the row is still being read. */
export const MAX_CSV_ROW_CHARS = 64 * 1024
/** Characters of one cell. */
export const MAX_CSV_FIELD_CHARS = 4 * 1024

const limitError = (code: ErrorCode, detail: string) => AppError.badRequest(`Invalid CSV: ${detail}`, code)

/** Checks one record as it arrives (`row` counts from 1, the header); the header gets the header limits. */
const checkRecord = (record: string[], row: number) => {
  const isHeader = row === 1
  // PostgreSQL cannot store NUL in text; preview would echo it and create fail on it.
  if (record.some((cell) => cell.includes('\u0000')))
    throw invalidCsv(`${isHeader ? 'the header' : `row ${row}`} holds a NUL character`)
  if (isHeader) {
    if (record.length > MAX_CSV_COLUMNS)
      throw limitError('csv_too_many_columns', `the header has more than ${MAX_CSV_COLUMNS} columns`)
    if (Buffer.byteLength(record.join(',')) > MAX_CSV_HEADER_BYTES)
      throw limitError('csv_header_too_large', `the header row is larger than ${MAX_CSV_HEADER_BYTES} bytes`)
  } else if (record.length > MAX_CSV_COLUMNS) {
    throw limitError('csv_too_many_columns', `a row has more than ${MAX_CSV_COLUMNS} columns`)
  }
  if (record.some((cell) => cell.length > MAX_CSV_FIELD_CHARS))
    throw limitError('csv_field_too_large', `a cell is longer than ${MAX_CSV_FIELD_CHARS} characters`)
}

/** A CSV read as its bytes arrived: every record (the header first), and the file's hash and size. */
export type ParsedCsv = { records: string[][]; sha256: string; bytes: number }

/** The refusal of a file with more than MAX_CSV_ROWS rows: each upload words it for its own use. */
export type TooManyRows = (maxRows: number) => AppError

/** The campaign's wording (the default). */
export const tooManyContactRows: TooManyRows = (maxRows) =>
  AppError.badRequest(
    `The file has more than ${maxRows} rows; a job takes at most ${batchLimits.maxContacts} contacts`,
    'too_many_contacts',
  )

/**
 * Parses an uploaded CSV from its stream, as the bytes arrive (csv-parse's stream API, fed chunk
 * by chunk with back-pressure), checking every limit as records come: columns, header size, row
 * and cell size, and the number of rows. A file that breaks one is refused at that record, before
 * the rest of it is read; the event loop only ever parses one chunk at a time. Every cell is text,
 * rows of any width (judged against the header later). Hashes the bytes on the way (for
 * Idempotency-Key).
 */
export const parseCsvStream = (
  stream: Readable,
  { tooManyRows = tooManyContactRows }: { tooManyRows?: TooManyRows } = {},
): Promise<ParsedCsv> =>
  new Promise((resolve, reject) => {
    const parser = parse({
      bom: true,
      // A stray quote inside an unquoted cell (5" screen) is text, as spreadsheets write it.
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: MAX_CSV_ROW_CHARS,
    })
    const hash = createHash('sha256')
    // The bytes must be UTF-8: csv-parse would read others as U+FFFD and store that as if sent.
    // A fatal streaming decoder checks sequences split between chunks too.
    const utf8 = new TextDecoder('utf-8', { fatal: true })
    const notUtf8 = () => invalidCsv('the file is not UTF-8 text (save it as CSV UTF-8)')
    const records: string[][] = []
    let bytes = 0
    let settled = false
    const fail = (error: unknown) => {
      if (settled) return
      settled = true
      stream.unpipe(parser)
      parser.destroy()
      // The rest of the upload is read and dropped, not parsed.
      stream.resume()
      reject(toAppError(error))
    }
    parser.on('readable', () => {
      try {
        for (let record = parser.read(); record !== null && !settled; record = parser.read()) {
          checkRecord(record, records.length + 1)
          if (records.length > MAX_CSV_ROWS) throw tooManyRows(MAX_CSV_ROWS)
          records.push(record)
        }
      } catch (error) {
        fail(error)
      }
    })
    parser.on('error', fail)
    parser.on('end', () => {
      if (settled) return
      try {
        utf8.decode()
      } catch {
        return fail(notUtf8())
      }
      settled = true
      resolve({ records, sha256: hash.digest('hex'), bytes })
    })
    stream.on('data', (chunk: Buffer) => {
      if (settled) return
      hash.update(chunk)
      bytes += chunk.length
      try {
        utf8.decode(chunk, { stream: true })
      } catch {
        fail(notUtf8())
      }
    })
    stream.on('error', fail)
    stream.pipe(parser)
  })

const toAppError = (error: unknown) => {
  if (error instanceof AppError) return error
  if (error instanceof CsvError) {
    if (error.code === 'CSV_MAX_RECORD_SIZE')
      return limitError('csv_row_too_large', `a row is longer than ${MAX_CSV_ROW_CHARS} characters`)
    return invalidCsv(error.message)
  }
  return new AppError({
    status: 500,
    code: 'csv_processing_failure',
    message: 'CSV processing failure',
    cause: error,
  })
}

/** Header names compared without case or surrounding blanks: `Phone`, `PHONE` and ` phone ` match. */
export const columnIndex = (header: string[], name: string) =>
  header.findIndex((column) => column.trim().toLowerCase() === name)
