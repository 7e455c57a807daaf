import { setImmediate } from 'node:timers/promises'
import { AppError } from '../http/app-error.ts'
import { columnIndex } from '../http/csv.ts'

export {
  MAX_CSV_COLUMNS,
  MAX_CSV_FIELD_CHARS,
  MAX_CSV_HEADER_BYTES,
  MAX_CSV_ROW_CHARS,
  MAX_CSV_ROWS,
  type ParsedCsv,
  parseCsvStream,
} from '../http/csv.ts'

/**
 * A contact row as read from the file: its number (the header is row 1), the phone cell, the name
 * cell, every other column.
 */
export type CsvContact = { row: number; phone: string; name: string | null; fields: Record<string, string> }

/** A row whose width differs from the header's: its number and its phone cell when it has one. */
export type MalformedRow = { row: number; phone: string }

export type CsvReadout = { rows: CsvContact[]; malformedRows: MalformedRow[] }

const invalidCsv = (detail: string) => AppError.badRequest(`Invalid CSV: ${detail}`, 'invalid_csv')

/**
 * Reads an uploaded CSV: a header row with a `phone` column (any case), an optional `name`
 * column, and any other columns kept under their header as given. A row whose width differs from
 * the header's is malformed: it is skipped and listed, like a row with a bad phone later on.
 * Columns without a name (a trailing comma) are dropped.
 */
export const readCsvContacts = async (parsed: string[][]): Promise<CsvReadout> => {
  const [header, ...records] = parsed
  if (!header) throw invalidCsv('the file is empty')
  const names = header.map((column) => column.trim())
  const named = names.filter((name) => name !== '').map((name) => name.toLowerCase())
  if (new Set(named).size !== named.length) throw invalidCsv('column names repeat')
  // A JavaScript object cannot hold `__proto__` as a plain key (assigning it sets the prototype),
  // so such a column would vanish without a word: it is refused instead. `constructor`,
  // `prototype` and every other name are kept as given.
  if (names.includes('__proto__'))
    throw invalidCsv('a column may not be named __proto__; rename it (for instance proto)')
  const phoneAt = columnIndex(names, 'phone')
  if (phoneAt < 0)
    throw AppError.badRequest(
      'The CSV has no phone column (header row: phone, name, …)',
      'missing_phone_column',
    )
  const nameAt = columnIndex(names, 'name')

  const rows: CsvContact[] = []
  const malformedRows: MalformedRow[] = []
  for (const [at, record] of records.entries()) {
    // A row of 100 columns takes a few microseconds a column: a turn of the event loop every 200.
    if (at % 200 === 199) await setImmediate()
    // The header is row 1.
    const row = at + 2
    if (record.length !== names.length) {
      malformedRows.push({ row, phone: (record[phoneAt] ?? '').trim() })
      continue
    }
    const fields: Record<string, string> = {}
    names.forEach((column, at) => {
      if (at !== phoneAt && at !== nameAt && column !== '') fields[column] = record[at] ?? ''
    })
    const name = nameAt < 0 ? '' : (record[nameAt] ?? '').trim()
    rows.push({ row, phone: (record[phoneAt] ?? '').trim(), name: name === '' ? null : name, fields })
  }
  return { rows, malformedRows }
}
