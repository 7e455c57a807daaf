import { batchLimits } from '@parley/shared'
import { CsvError, parse } from 'csv-parse/sync'
import { AppError } from '../http/app-error.ts'

/** A contact row as read from the file: the phone cell, the name cell, every other column. */
export type CsvContact = { phone: string; name: string | null; fields: Record<string, string> }

export type CsvReadout = { rows: CsvContact[]; malformedRows: number }

const invalidCsv = (detail: string) => AppError.badRequest(`Invalid CSV: ${detail}`, 'invalid_csv')

/**
 * Rows read at most. Checking a phone costs tens of microseconds and the parse blocks the event
 * loop, so a 10 MiB file of 800,000 short rows would stall the process for many seconds; five
 * times the contact limit leaves room for invalid and repeated rows.
 */
export const MAX_CSV_ROWS = 5 * batchLimits.maxContacts

/** Every cell as text; rows of any width are kept here and judged against the header below. */
const readRecords = (file: Buffer): string[][] => {
  try {
    return parse(file, {
      // The header, the rows allowed, and one more to tell that the file goes on.
      to: MAX_CSV_ROWS + 2,
      bom: true,
      // A stray quote inside an unquoted cell (5" screen) is text, as spreadsheets write it.
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
    })
  } catch (error) {
    if (error instanceof CsvError) throw invalidCsv(error.message)
    throw new AppError({
      status: 500,
      code: 'csv_processing_failure',
      message: 'CSV processing failure',
      cause: error,
    })
  }
}

/** Header names compared without case or surrounding blanks: `Phone`, `PHONE` and ` phone ` match. */
const columnIndex = (header: string[], name: string) =>
  header.findIndex((column) => column.trim().toLowerCase() === name)

/**
 * Reads an uploaded CSV: a header row with a `phone` column (any case), an optional `name`
 * column, and any other columns kept under their header as given. A row whose width differs from
 * the header's is malformed: it is skipped and counted, like a row with a bad phone later on.
 * Columns without a name (a trailing comma) are dropped.
 */
export const readCsvContacts = (file: Buffer): CsvReadout => {
  const [header, ...records] = readRecords(file)
  if (!header) throw invalidCsv('the file is empty')
  if (records.length > MAX_CSV_ROWS)
    throw AppError.badRequest(
      `The file has more than ${MAX_CSV_ROWS} rows; a job takes at most ${batchLimits.maxContacts} contacts`,
      'too_many_contacts',
    )
  const names = header.map((column) => column.trim())
  const named = names.filter((name) => name !== '').map((name) => name.toLowerCase())
  if (new Set(named).size !== named.length) throw invalidCsv('column names repeat')
  const phoneAt = columnIndex(names, 'phone')
  if (phoneAt < 0)
    throw AppError.badRequest(
      'The CSV has no phone column (header row: phone, name, …)',
      'missing_phone_column',
    )
  const nameAt = columnIndex(names, 'name')

  const rows: CsvContact[] = []
  let malformedRows = 0
  for (const record of records) {
    if (record.length !== names.length) {
      malformedRows += 1
      continue
    }
    const fields: Record<string, string> = {}
    names.forEach((column, at) => {
      if (at !== phoneAt && at !== nameAt && column !== '') fields[column] = record[at] ?? ''
    })
    const name = nameAt < 0 ? '' : (record[nameAt] ?? '').trim()
    rows.push({ phone: (record[phoneAt] ?? '').trim(), name: name === '' ? null : name, fields })
  }
  return { rows, malformedRows }
}
